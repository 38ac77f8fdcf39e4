"""srt_tui.slurm."""
