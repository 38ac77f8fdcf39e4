"""One refresh: build a JobSnapshot from files, Slurm and probes, and collect them for every tracked job."""
