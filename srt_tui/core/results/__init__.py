"""What a job measured: sa-bench and aiperf results, benchmark progress, result tables."""
