"""srt-tui: the operator's cockpit for disaggregated LLM serving on Slurm."""

__version__ = "0.1.0"
