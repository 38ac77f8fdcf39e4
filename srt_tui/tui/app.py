"""The Textual app (Launch, Monitor and Setup modes)."""

from __future__ import annotations

import argparse


def run_app(args: argparse.Namespace) -> int:
    """Run the TUI; returns the process exit code."""
    from .main import SrtTuiApp

    SrtTuiApp(profile=args.profile, read_only=args.read_only).run()
    return 0
