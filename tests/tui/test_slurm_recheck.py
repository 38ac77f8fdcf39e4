"""The header follows Slurm over time: the app asks again on an interval, in a worker, and shows the newest answer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

import pytest

from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.header import AppHeader

from .tui_helpers import FIXED_NOW


class QuickRecheck(SrtTuiApp):
    SLURM_RECHECK_S: ClassVar[float] = 0.2


async def _wait_for(app: SrtTuiApp, state: str) -> None:
    for _ in range(100):
        if app.context.slurm_state == state:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"header stayed {app.context.slurm_state!r}, expected {state!r}")


async def test_the_header_follows_a_controller_that_goes_away_and_comes_back() -> None:
    """The controller answers, then does not, then does again; each state holds until the header has shown it
    (a loaded machine once missed a down that lasted one recheck)."""
    answers = {"up": (True, "slurmctld answered"), "down": (False, "slurmctld not reachable")}
    now = ["up"]
    asked: list[int] = []

    def probe() -> tuple[bool, str]:
        asked.append(1)
        return answers[now[0]]

    app = QuickRecheck(clock=lambda: FIXED_NOW, slurm_probe=probe, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await _wait_for(app, "up")
        now[0] = "down"
        await _wait_for(app, "down")
        assert app.context.slurm_reason == "slurmctld not reachable"
        now[0] = "up"
        await _wait_for(app, "up")
        await pilot.pause()
    assert len(asked) >= 3


async def test_no_recheck_when_the_check_is_off() -> None:
    def probe() -> tuple[bool, str]:
        raise AssertionError("the check is off: Slurm must not be asked")

    app = QuickRecheck(clock=lambda: FIXED_NOW, check_slurm=False, slurm_probe=probe, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await asyncio.sleep(0.5)
        await pilot.pause()
        assert app.context.slurm_state == "off"


async def test_a_job_view_marks_slurms_last_answer_stale_while_the_header_says_unreachable() -> None:
    """Operator pass (issue 21, 2026-12-07): the header read `Slurm ✗ unreachable` while the job view read
    `sources slurm ✓`. While the app's probe says down, Slurm's last answer is `slurm ? stale`, never ✓; it is ✓
    again once Slurm answers."""
    from srt_tui.tui.monitor.job_view import JobSummary
    from tests.monitor import frozen
    from tests.monitor.tui_apps import frozen_app

    snap = frozen.nvidia("healthy")
    assert any(src.name == "slurm" and src.ok for src in snap.sources)
    answer = [(True, "slurmctld answered")]
    app = frozen_app([snap], open_job=snap.job_id)
    app.check_slurm, app.slurm_probe = True, lambda: answer[0]  # the app's own probe, answering as told

    async with app.run_test(size=(160, 40)) as pilot:

        async def probed(reachable: bool, reason: str) -> str:
            answer[0] = (reachable, reason)
            app.probe_slurm()
            await app.workers.wait_for_complete()
            await _wait_for(app, "up" if reachable else "down")
            await pilot.pause()
            line = str(app.screen.query_one(JobSummary).render())
            return line[line.index("sources") :].split("\n")[0]

        assert "slurm ✓" in (shown := await probed(True, "slurmctld answered")), shown
        shown = await probed(False, "slurmctld not reachable")
        assert "slurm ✓" not in shown and "slurm ? stale" in shown, shown
        shown = await probed(True, "slurmctld answered")
        assert "slurm ✓" in shown and "stale" not in shown, shown


async def test_the_header_says_why_slurm_is_unreachable_in_a_login_nodes_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-operator pass (issue 21): `Slurm ✗ unreachable` said nothing of why, and the reason the app held talked of
    "the local test cluster" and its LOCAL_SLURM_DIR. The mouse over the header says the real check's reason: what is
    missing and a login node's fix (SLURM_CONF, the site's Slurm module)."""
    conf = tmp_path / "nowhere" / "slurm.conf"
    monkeypatch.setenv("SLURM_CONF", str(conf))
    monkeypatch.setenv("SRT_TUI_SLURM_TRANSPORT", "cli")
    monkeypatch.delenv("LOCAL_SLURM_DIR", raising=False)
    app = SrtTuiApp(clock=lambda: FIXED_NOW, cursor_blink=False)  # the real check (`slurm_reachable`)
    async with app.run_test(size=(120, 36)) as pilot:
        await _wait_for(app, "down")
        await pilot.pause()
        header = app.screen.query_one(AppHeader)
        assert "Slurm ✗ unreachable" in str(header.render())
        said = str(header.tooltip)
        assert said.startswith("Slurm: ") and f"SLURM_CONF={conf} names no file" in said, said
        assert "module load slurm" in said and "test cluster" not in said and "LOCAL_SLURM_DIR" not in said, said
