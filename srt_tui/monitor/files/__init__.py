"""What the monitor reads from a job directory: job files, and logs followed by their new bytes."""
