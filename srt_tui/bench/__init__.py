"""Benchmark clients that run inside a job (standard library only, shipped into the job directory)."""
