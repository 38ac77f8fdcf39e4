"""The model as the worker commands see it: the name they serve and the path they load it from, each labelled,
so the dry-run's header and the wizard's Preview read like the commands below them (`--model mock-model`)."""

from __future__ import annotations

from srt_tui.core.plan.model import JobPlan


def model_line(plan: JobPlan) -> str:
    """`served as mock-model · loaded from /models/x`, and where a container sees the path (`mounted at /model`)."""
    line = f"served as {plan.served_model_name} · loaded from {plan.model_path}"
    inside = next((m.container for m in plan.mounts if m.host == plan.model_path), None)
    if inside and inside != plan.model_path:
        line += f" (mounted at {inside})"
    return line
