"""Every Slurm job of the user, srt-tui's or not: one user-scoped query and its squeue-style cells."""
