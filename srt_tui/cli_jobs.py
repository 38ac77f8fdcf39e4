"""`apply`, `status`, `wait`, `cancel`: job commands (filled in with the Slurm transports)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_job_commands(sub: Any, recipe_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register the job subcommands on the CLI parser."""
    return None
