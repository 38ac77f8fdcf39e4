"""Lifecycle stage of a job from its own events reconciled with Slurm's state, and its start/end times."""

from __future__ import annotations

from srt_tui.monitor.files.jobfiles import Event
from srt_tui.monitor.model import FINAL_STAGES, iso_utc
from srt_tui.slurm.client import JobState

_SLURM_FINAL = {
    "COMPLETED": "completed",
    "CANCELLED": "cancelled",
    "TIMEOUT": "timed out",
    "FAILED": "failed",
    "NODE_FAIL": "failed",
    "OUT_OF_MEMORY": "failed",
    "BOOT_FAIL": "failed",
    "DEADLINE": "timed out",
    "PREEMPTED": "cancelled",
}


def derive_stage(events: list[Event], state: JobState | None) -> tuple[str, str, str]:
    """(stage, time, detail) from the job's own events reconciled with Slurm's state."""
    last = events[-1] if events else Event("submitted", "", "")
    slurm = state.state if state is not None else "UNKNOWN"
    if slurm == "PENDING" and last.stage in ("submitted", ""):
        return "pending", last.time, state.reason_worth_showing if state else ""
    final = _SLURM_FINAL.get(slurm)
    if final is not None:
        if last.stage in FINAL_STAGES:
            if final == "timed out" and last.stage == "cancelled":
                return "timed out", last.time, "time limit reached"
            return last.stage, last.time, last.detail
        reason = state.reason_worth_showing if state else ""
        detail = f"Slurm: {slurm}" + (f" ({reason})" if reason else "")
        if final == "completed":
            final, detail = "failed", f"the job ended at stage `{last.stage}` ({detail})"
        return final, last.time, detail
    return last.stage, last.time, last.detail


def started_at(events: list[Event], state: JobState | None) -> str:
    """When the job started running: Slurm's start time, else its first `starting` event."""
    if state is not None and state.start_time:
        return iso_utc(state.start_time)
    return next((e.time for e in events if e.stage == "starting"), "")


def ended_at(events: list[Event], state: JobState | None, final: bool) -> str:
    """When it ended (empty while it runs): Slurm's end time, else its final event."""
    if not final:
        return ""
    if state is not None and state.end_time:
        return iso_utc(state.end_time)
    return events[-1].time if events and events[-1].stage in FINAL_STAGES else ""
