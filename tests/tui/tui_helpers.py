"""Helpers of the TUI tests: a deterministic app (fixed clock, fixed Slurm answer, no blink, no animation)."""

from __future__ import annotations

from datetime import datetime

from srt_tui.tui.app import SrtTuiApp

FIXED_NOW = datetime(2026, 1, 2, 3, 4, 5)
SLURM_DOWN = (False, "sinfo: command not found")

BROKEN_PROFILE = "description: a profile with a typo\ngpus_per_nod: 8\n"


def make_app(profile: str | None = None, *, probe: tuple[bool, str] | None = SLURM_DOWN) -> SrtTuiApp:
    """The app as tests see it: nothing depends on the host, the wall clock or a real Slurm."""
    app = SrtTuiApp(
        profile=profile,
        clock=lambda: FIXED_NOW,
        check_slurm=probe is not None,
        slurm_probe=(lambda: probe) if probe is not None else None,
        cursor_blink=False,
    )
    app.animation_level = "none"
    return app
