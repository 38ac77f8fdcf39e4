"""The files of core/templates (the runtime, the fingerprint and profiling scripts), read once.

Its own module so the planner (which embeds the profiling trigger) and the renderer both read them
without the planner depending on the renderer.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_TEMPLATES = Path(__file__).parent / "templates"


@cache
def template(name: str) -> str:
    """A file of core/templates, read once."""
    return (_TEMPLATES / name).read_text(encoding="utf-8")
