"""Monitor mode's all-jobs view: every Slurm job of the user, srt-tui's and srtctl's opening in the job view."""
