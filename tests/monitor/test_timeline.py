"""A job's events in one list (`monitor.timeline`): the stages of its status.jsonl and its workers' health
changes, in time order, an event without a time kept where the file put it."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from srt_tui.core.jobdir.events import Event
from srt_tui.monitor.model import HealthChange, WorkerStatus
from srt_tui.monitor.timeline import offset, started, timeline

pytestmark = pytest.mark.unit


def _worker(name: str, *changes: tuple[str, str]) -> WorkerStatus:
    return WorkerStatus(
        name=name, role="decode", node_index=0, gpus=(0,), mask=None, url="", health=changes[-1][1],
        health_history=tuple(HealthChange(at, health) for at, health in changes),
    )  # fmt: skip


def test_stages_and_health_changes_interleave_by_time() -> None:
    events = [
        Event("submitted", "2026-03-01T11:00:00.000Z", "slurm job 7"),
        Event("workers healthy", "2026-03-01T11:00:30.500Z", "2/2"),
        Event("failed", "2026-03-01T11:05:00Z", "worker decode_0 exited with code 1"),
    ]
    worker = _worker("decode_0", ("2026-03-01T11:00:40Z", "healthy"), ("2026-03-01T11:04:58Z", "down"))
    got = [(e.who, e.what) for e in timeline(events, [worker])]
    assert got == [
        ("job", "submitted"),
        ("job", "workers healthy"),
        ("decode_0", "healthy"),
        ("decode_0", "down"),
        ("job", "failed"),
    ]
    assert [e.bad for e in timeline(events, [worker])] == [False, False, False, True, True]


def test_an_event_without_a_time_stays_after_the_one_before_it() -> None:
    events = [
        Event("submitted", "2026-03-01T11:00:00Z", ""),
        Event("router ready", "", "hand-written, no time"),
        Event("serving", "2026-03-01T11:01:00Z", ""),
    ]
    worker = _worker("agg_0", ("2026-03-01T11:00:10Z", "healthy"))
    assert [e.what for e in timeline(events, [worker])] == ["submitted", "router ready", "healthy", "serving"]
    assert timeline([Event("x", "", "")])[0].json() == {"at": "", "who": "job", "what": "x", "detail": ""}


def test_offsets_count_from_the_first_known_time() -> None:
    entries = timeline(
        [Event("a", "", ""), Event("b", "2026-03-01T11:00:00Z", ""), Event("c", "2026-03-01T12:02:05Z", "")]
    )
    start = started(entries)
    assert start == datetime(2026, 3, 1, 11, 0, tzinfo=timezone.utc)
    assert [offset(e, start) for e in entries] == ["", "+0s", "+1h02m"]


def test_within_a_second_the_stages_come_before_the_health_rows_they_explain() -> None:
    """Operator pass: `04:53:34 +1s prefill_0 unknown` came before `04:53:34 +1s job starting`. A health change is
    stamped with its refresh's whole second (12:00:01 may be 12:00:01.9), so in that second the stages lead; the
    stages keep their own order, and health rows of a later second still follow by time."""
    events = [
        Event("submitted", "2026-03-01T12:00:00.300Z", "slurm job 7"),
        Event("starting", "2026-03-01T12:00:01.700Z", "job 7 via slurm"),
        Event("resolving nodes", "2026-03-01T12:00:01.900Z", "interface eth0"),
        Event("failed", "2026-03-01T12:05:00.400Z", "worker prefill_0 exited with code 1"),
    ]
    prefill = _worker("prefill_0", ("2026-03-01T12:00:01Z", "unknown"), ("2026-03-01T12:05:00Z", "down"))
    decode = _worker("decode_0", ("2026-03-01T12:00:01Z", "unknown"), ("2026-03-01T12:00:02Z", "healthy"))
    got = [(e.who, e.what) for e in timeline(events, [prefill, decode])]
    assert got == [
        ("job", "submitted"),
        ("job", "starting"),
        ("job", "resolving nodes"),
        ("prefill_0", "unknown"),
        ("decode_0", "unknown"),
        ("decode_0", "healthy"),
        ("job", "failed"),
        ("prefill_0", "down"),
    ]
