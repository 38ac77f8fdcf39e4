"""The two faces of a snapshot's serving figures, as text: the job view's Serving panel and `status`'s serving line,
and the figures (with their units) and span each says, to compare them."""

from __future__ import annotations

import contextlib
import io
import re

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor.serving_panel import ServingPanel
from tests.monitor.tui_apps import frozen_app

#: a figure with its unit (`<100 ms`, `≈160 ms`, `1.6k tok/s`, `37 %`) or the span (`over the last 61 s`)
FIGURE = re.compile(r"[<≈]?\d[\d.]*k? (?:ms|s|tok/s|%)|over the last [\d.]+ s")


def figures(text: str) -> list[str]:
    """The figures and span ``text`` says, in order."""
    return FIGURE.findall(text)


def status_line(snap: JobSnapshot) -> str:
    """The `serving:` line `srt-tui status` prints for ``snap`` (its table printer, as the command runs it)."""
    from srt_tui.cli.jobs import print_table

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_table([snap], None)
    return next(x for x in out.getvalue().splitlines() if x.startswith(f"{snap.job_id}: serving: "))


async def panel_text(snap: JobSnapshot) -> str:
    """What the job view's Serving panel draws for ``snap``, on a terminal wide enough for one line of figures."""
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(160, 36)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(ServingPanel)
        return " ".join("".join(seg.text for seg in strip) for strip in panel.render_lines(panel.region.reset_offset))
