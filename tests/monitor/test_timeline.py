"""A job's events in one list (`monitor.timeline`): the stages of its status.jsonl and its workers' health
changes, in time order, an event without a time kept where the file put it."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from srt_tui.core.jobdir.contract import CancelDoc, JobMeta, write_cancel, write_job_meta
from srt_tui.core.jobdir.events import STATUS_FILE, Event
from srt_tui.monitor.model import HealthChange, WorkerStatus
from srt_tui.monitor.timeline import offset, read_story, started, timeline

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


def test_a_slurm_job_cancelled_in_the_queue_ends_with_its_cancel_and_its_workers_get_no_rows(tmp_path: Path) -> None:
    """Operator pass: a Slurm job cancelled while PENDING never ran its launch script (whose trap writes the
    `cancelled` stage): its events were `submitted`, then each worker `down   the job has ended`. Its directory as
    srt-tui leaves it: job.json, the `submitted` event, and the cancel.json written before scancel."""
    write_job_meta(tmp_path, JobMeta("8123", name="mocker-1p2d", launcher="slurm"))
    (tmp_path / STATUS_FILE).write_text(
        '{"stage": "submitted", "time": "2026-03-01T06:15:00.000Z", "detail": "slurm job 8123 via sbatch"}\n'
    )
    write_cancel(tmp_path, CancelDoc("the srt-tui Monitor", "2026-03-01T06:17:04Z", "op", "login1"))
    ended = ("2026-03-01T06:17:05Z", "down")
    workers = [_worker(n, ("2026-03-01T06:15:01Z", "unknown"), ended) for n in ("prefill_0", "decode_0")]
    story = read_story(tmp_path)
    got = [(e.who, e.what, e.detail) for e in timeline(story.events, workers, story.cancel)]
    assert got == [
        ("job", "submitted", "slurm job 8123 via sbatch"),
        ("job", "cancelled", "cancelled with the srt-tui Monitor at 06:17 UTC"),
    ]


def test_a_cancel_the_launch_script_recorded_is_not_said_twice_and_its_workers_keep_their_rows() -> None:
    """A job cancelled while it ran: its trap wrote the `cancelled` stage (after the cancel.json), so that is its end,
    and its workers, which ran, keep their health rows."""
    events = [
        Event("submitted", "2026-03-01T06:15:00Z", "slurm job 8124"),
        Event("starting", "2026-03-01T06:15:10Z", "job 8124 via slurm"),
        Event("cancelled", "2026-03-01T06:17:06Z", "cancelled with srt-tui (cancel.json)"),
    ]
    cancel = CancelDoc("srt-tui cancel", "2026-03-01T06:17:04Z")
    worker = _worker("agg_0", ("2026-03-01T06:16:00Z", "healthy"), ("2026-03-01T06:17:07Z", "down"))
    got = [(e.who, e.what) for e in timeline(events, [worker], cancel)]
    assert got == [
        ("job", "submitted"),
        ("job", "starting"),
        ("agg_0", "healthy"),
        ("job", "cancelled"),
        ("agg_0", "down"),
    ]


def test_a_readiness_the_jobs_check_wrote_says_how_often_it_checks_and_when_the_monitor_saw_it() -> None:
    """Issue 21 / s35: `workers healthy 2/2` came up to srtctl's 10 s health interval after the Monitor's own rows
    showed both workers healthy, unexplained. The job's readiness says its check interval (kept for parity), and
    `workers healthy` N/N how long before it this Monitor saw them all healthy; a count on the way up says nothing."""
    events = [
        Event("workers healthy", "2026-03-01T11:00:10Z", "0/2"),
        Event("workers healthy", "2026-03-01T11:00:30.500Z", "2/2"),
        Event("router ready", "2026-03-01T11:00:40Z", "P 1/1 D 1/1 A 0/0"),
    ]
    prefill = _worker("prefill_0", ("2026-03-01T11:00:05Z", "unknown"), ("2026-03-01T11:00:21Z", "healthy"))
    decode = _worker("decode_0", ("2026-03-01T11:00:05Z", "unknown"), ("2026-03-01T11:00:22Z", "healthy"))
    said = {(e.what, e.detail.split(" ")[0]): e.detail for e in timeline(events, [prefill, decode], check_every_s=10)}
    assert said[("workers healthy", "0/2")] == "0/2"
    assert said[("workers healthy", "2/2")] == "2/2 (the Monitor saw all healthy 8s earlier; the job checks every 10 s)"
    assert said[("router ready", "P")] == "P 1/1 D 1/1 A 0/0 (the job checks every 10 s)"
    # a Monitor that saw one of them healthy only after the job said so (opened late) claims nothing earlier
    late = _worker("decode_0", ("2026-03-01T11:00:35Z", "healthy"))
    job = [e.detail for e in timeline(events[1:2], [prefill, late], check_every_s=10) if e.who == "job"]
    assert job == ["2/2 (the job checks every 10 s)"]
    assert [e.detail for e in timeline(events)] == ["0/2", "2/2", "P 1/1 D 1/1 A 0/0"]  # interval unknown: as written
