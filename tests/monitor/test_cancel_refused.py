"""`c` (cancel) says why when there is nothing to cancel (new-operator pass, s36): on an ended job the footer hides
Cancel, and `c` did nothing visible at all; now a toast says it, as `srt-tui cancel` does (`job 81234 has ended
(cancelled): nothing to cancel.`), and no dialog opens."""

from __future__ import annotations

from dataclasses import replace

import pytest

from srt_tui.tui.monitor.dialogs import ConfirmCancel
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

ENDED = replace(
    frozen.nvidia("healthy", "81234"), stage="cancelled", slurm_state="CANCELLED", ended_at="2026-03-01T11:58:00Z"
)


@pytest.mark.parametrize("in_view", [False, True], ids=["jobs-list", "job-view"])
async def test_c_on_an_ended_job_says_there_is_nothing_to_cancel(in_view: bool) -> None:
    calls: list[str] = []
    app = frozen_app([ENDED], open_job=ENDED.job_id if in_view else None, canceller=lambda j, p: calls.append(j))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.in_job_view == in_view
        assert "c" not in {k for k, a in screen.active_bindings.items() if a.binding.show}  # not offered
        await pilot.press("c")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmCancel) and calls == []
        toasts = [(str(n.message), n.severity) for n in app._notifications]
        assert toasts == [("job 81234 has ended (cancelled): nothing to cancel.", "warning")]
