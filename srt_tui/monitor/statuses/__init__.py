"""Per-refresh statuses built from files and probes: workers, router, GPUs, stage, relay, and their histories."""
