"""A running benchmark's progress: ``logs/benchmark-progress.json`` as sa-bench writes it, and its ETA.

The client (``srt_tui/bench/sa_bench.py``, standard library only) writes the file; this module is its one
reader, for `srt-tui status` and the Monitor alike. The other benchmark types (the accuracy evaluations,
aiperf, custom commands) report no progress of their own, so they show none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from srt_tui.core.results.model import json_number

PROGRESS_FILE = "logs/benchmark-progress.json"  # relative to the job directory


@dataclass(frozen=True)
class BenchProgress:
    """Where the benchmark is: concurrency step i of n, requests done of total (this step, and all steps)."""

    phase: str  # starting, warmup, measure, done
    step: int  # 1-based
    steps: int
    concurrency: int
    done: int
    total: int
    done_all: int
    total_all: int
    elapsed_s: float  # since the client started, as of its last write
    eta_s: float | None  # None until a measured request finished

    def text(self) -> str:
        """One line: ``c=4 (2/3) 12/40 req, ETA 35 s`` (``warm-up`` instead of the count while warming)."""
        head = f"c={self.concurrency} ({self.step}/{self.steps})"
        if self.phase == "done":
            return f"{head} done, {self.done_all}/{self.total_all} req"
        count = "warm-up" if self.phase == "warmup" else f"{self.done}/{self.total} req"
        return f"{head} {count}" + (f", ETA {format_eta(self.eta_s)}" if self.eta_s is not None else "")


def format_eta(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    s = max(0, int(seconds + 0.5))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def _int(doc: dict[str, Any], key: str) -> int:
    value = doc.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def parse_progress(doc: Any) -> BenchProgress | None:
    """The progress in a parsed file, None for anything that is not one. ETA: the time so far per measured
    request times the requests left (warm-ups included in the time, so it errs long)."""
    if not isinstance(doc, dict):
        return None
    started, at = json_number(doc.get("started")), json_number(doc.get("time"))
    steps = _int(doc, "steps")
    if started is None or at is None or steps < 1:
        return None
    phase = str(doc.get("phase") or "")
    done_all, total_all = _int(doc, "done_all"), _int(doc, "total_all")
    elapsed = max(0.0, at - started)
    eta = None
    if phase != "done" and done_all > 0 and total_all >= done_all:
        eta = elapsed / done_all * (total_all - done_all)
    return BenchProgress(
        phase=phase,
        step=min(max(_int(doc, "step"), 1), steps),
        steps=steps,
        concurrency=_int(doc, "concurrency"),
        done=_int(doc, "done"),
        total=_int(doc, "total"),
        done_all=done_all,
        total_all=total_all,
        elapsed_s=elapsed,
        eta_s=eta,
    )
