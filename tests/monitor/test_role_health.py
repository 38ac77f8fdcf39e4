"""A ready job with a role that has no healthy worker cannot serve, and its stage says so on every face (s36 operator
pass: both decodes of a 1P2D job stopped, `D0/2` and `▲` in the jobs list, and the stage still `serving`); one with
some of a role's workers not serving says it less loudly. The real processes: tests/e2e/test_local_degraded.py."""

from __future__ import annotations

from dataclasses import replace

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor import jobs_model
from tests.monitor import frozen


def _decodes(healths: tuple[str, ...]) -> JobSnapshot:
    """The healthy H100 2P1D job with its decodes (one, or as many as ``healths``) seen so."""
    snap = frozen.nvidia("healthy")
    decode = next(w for w in snap.workers if w.role == "decode")
    others = tuple(w for w in snap.workers if w.role != "decode")
    decodes = tuple(replace(decode, name=f"decode_{i}", health=h) for i, h in enumerate(healths))
    return replace(snap, workers=others + decodes)


def test_a_role_with_no_healthy_worker_reads_degraded_on_every_face() -> None:
    snap = _decodes(("hung", "hung"))
    assert snap.stage == "serving"
    said = "degraded · no healthy decode worker (2 hung)"
    assert cells.stage_cell(snap) == said  # the job view's state line
    assert cells.list_stage(snap) == said  # `srt-tui status`
    assert jobs_model.cell(snap, "stage", frozen.fixed_clock()) == "degraded"  # the jobs list, beside `D0/2`
    assert cells.stage_cell(snap, short=True) == "degraded"


def test_healths_of_a_role_are_counted_each() -> None:
    assert cells.stage_cell(_decodes(("hung", "down"))) == "degraded · no healthy decode worker (1 hung, 1 down)"


def test_a_role_with_some_workers_healthy_serves_with_fewer() -> None:
    snap = _decodes(("healthy", "hung"))
    assert cells.stage_cell(snap) == "serving · 1/2 decode workers healthy (1 hung)"
    assert jobs_model.cell(snap, "stage", frozen.fixed_clock()) == "serving"  # ▲ and `D1/2` say it there


def test_workers_not_probed_yet_or_a_job_still_starting_say_nothing() -> None:
    assert cells.stage_cell(_decodes(("unknown", "unknown"))) == "serving"
    starting = replace(_decodes(("down", "down")), stage="workers starting")
    assert cells.stage_cell(starting) == "workers starting"
    assert cells.stage_cell(_decodes(("healthy", "healthy"))) == "serving"


def test_status_json_says_the_stage_every_face_shows_and_each_short_role() -> None:
    """`status --json` kept `"stage": "serving"` for a job that cannot serve: `health` says what the table says,
    with the figures of each role short of healthy workers; `stage` stays the job's progress."""
    from srt_tui.cli.jobs import snapshot_json

    doc = snapshot_json(_decodes(("hung", "hung")))
    assert doc["stage"] == "serving"
    assert doc["health"] == {
        "stage": "degraded",
        "says": "no healthy decode worker (2 hung)",
        "roles": {"decode": {"healthy": 0, "workers": 2, "hung": 2}},
    }
    fewer = snapshot_json(_decodes(("healthy", "hung", "down")))["health"]
    assert fewer["stage"] == "serving"
    assert fewer["roles"] == {"decode": {"healthy": 1, "workers": 3, "hung": 1, "down": 1}}
    assert snapshot_json(_decodes(("healthy", "healthy")))["health"] == {"stage": "serving", "says": "", "roles": {}}
