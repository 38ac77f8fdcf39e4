"""Arguments several commands share, declared once so their spelling, choices and help stay the same."""

from __future__ import annotations

import argparse


def add_transport_argument(parser: argparse.ArgumentParser) -> None:
    """`--transport auto|cli|pyslurm`: how a command that asks Slurm talks to it."""
    parser.add_argument(
        "--transport",
        default="auto",
        choices=["auto", "cli", "pyslurm"],
        help="Slurm transport (default: pyslurm if importable, else the command line)",
    )
