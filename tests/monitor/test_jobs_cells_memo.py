"""The jobs table works a snapshot's cells out once (issue 22: a sort key redrew 64 rows twice from snapshots that
had not changed): a new snapshot is worked out anew, ELAPSED follows the clock, and a refresh's retain drops the
snapshots it replaced."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from srt_tui.tui.monitor import jobs_model
from tests.monitor import frozen


def test_cells_follow_new_snapshots_and_the_clock_and_are_dropped_with_their_snapshot() -> None:
    now = frozen.fixed_clock()
    snap = replace(frozen.nvidia(), started_at=(now - timedelta(seconds=30)).isoformat())
    assert jobs_model.cell(snap, "stage", now) == jobs_model._cell(snap, "stage", now, False)
    ended = replace(snap, stage="completed", slurm_state="COMPLETED")
    assert (
        jobs_model.cell(ended, "stage", now)
        == jobs_model._cell(ended, "stage", now, False)
        != (jobs_model.cell(snap, "stage", now))
    )
    later = now + timedelta(minutes=5)
    assert jobs_model.cell(snap, "elapsed", later) == jobs_model._cell(snap, "elapsed", later, False)
    assert jobs_model.cell(snap, "elapsed", later) != jobs_model.cell(snap, "elapsed", now)
    jobs_model.retain([ended])
    assert id(snap) not in jobs_model._MEMO and id(ended) in jobs_model._MEMO
    jobs_model.retain([])
    assert not jobs_model._MEMO
