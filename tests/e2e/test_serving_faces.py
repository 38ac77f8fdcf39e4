"""The serving figures of one real job, a 1P2D mocker job behind the real sglang-router on the local launcher, as
`srt-tui status` and the Monitor's Serving panel say them under `srt-tui bench` (operator pass: the panel read
`in 274 tok/s … (over the last 61 s)`, a one-shot `status` `in 788 tok/s` over an unsaid 2 s, and `status --watch`
lost its latencies 2 s after a burst the panel still showed): one definition, each face saying its span."""

from __future__ import annotations

import asyncio
import queue
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from srt_tui.monitor.cells import client_ttft_reason
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.history import SAME_READING_S
from tests.conftest import REPO
from tests.e2e.jobtools import SRT, apply, srt, wait_ready
from tests.monitor import serving_faces

pytestmark = pytest.mark.routers
BURST = ("-n", "120", "--concurrency", "2")
SPAN = re.compile(r"\(over the last ([\d.]+) s\)$")


@pytest.fixture(scope="module")
def pd_job() -> Iterator[tuple[str, Path]]:
    """The running job (id, directory), cancelled after the module's tests."""
    job_id, job_dir = apply(str(REPO / "recipes/mocker/mocker-1p2d.yaml"), "--launcher", "local", "-p", "local")
    try:
        wait_ready(str(job_dir))
        yield job_id, job_dir
    finally:
        srt("cancel", str(job_dir), check=False)


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    """The process's stdout lines as they come (read by a thread, so the test can wait with a deadline)."""
    got: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    out = proc.stdout

    def read() -> None:
        for line in out:
            got.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return got


def _blocks(lines: queue.Queue[str], job_id: str, deadline: float) -> Iterator[tuple[str, str]]:
    """Each `--watch` block's (REQ/S cell, serving line) of the job, until the deadline."""
    header: list[str] = []
    rate = ""
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == "JOB":
            header = cells
        elif cells[0] == job_id and header:
            rate = cells[header.index("REQ/S")]
        elif line.startswith(f"{job_id}: serving: "):
            yield rate, line


def test_status_watch_keeps_a_bursts_figures_for_its_minute_as_the_monitor_does(pd_job: tuple[str, Path]) -> None:
    """After the burst no request is served (REQ/S, over its last seconds, reads 0), yet the minute's latencies and
    output rate are still shown, over a span that grows with the refreshes: `--watch` keeps its window across them.
    Each refresh measured since the one before (0.5 s) and read `TTFT p50 -` as soon as the burst had ended."""
    job_id, job_dir = pd_job
    watch = [*SRT, "status", "--watch", "-n", "0.5", str(job_dir)]
    proc = subprocess.Popen(watch, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        blocks = _blocks(_lines(proc), job_id, time.monotonic() + 120)
        next(blocks)  # the first refresh: before the burst
        srt("bench", str(job_dir), *BURST)
        served = next((b for b in blocks if b[0] not in ("0", "-") and "TTFT p50 -" not in b[1]), None)
        assert served is not None, "no refresh saw the burst"
        after = []
        for rate, line in blocks:
            if rate == "0":
                after.append(line)
            if len(after) == 3:
                break
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert len(after) == 3, after
    spans = []
    for line in after:
        span = SPAN.search(line)
        assert span is not None and "TTFT p50 -" not in line and "out 0 tok/s" not in line, line
        spans.append(float(span.group(1)))
    assert spans == sorted(spans) and spans[-1] > spans[0], after


def test_a_one_shot_status_says_its_span_since_the_previous_run(pd_job: tuple[str, Path]) -> None:
    """The first run has no earlier samples (this test's own state) and says what its rates need; the next one
    measures since the first, and says over how long: no longer than between the two runs' starts and ends."""
    job_id, job_dir = pd_job

    def line() -> str:
        out = srt("status", str(job_dir)).stdout.splitlines()
        return next(x for x in out if x.startswith(f"{job_id}: serving: "))

    started = time.monotonic()
    assert line().endswith("(rates: run `status` again within a minute)")
    # an idle job's counters unchanged within SAME_READING_S are the same reading (a relay's re-read), not a second
    # sample: two runs that quick (CI: 1.17 s for both) measured nothing
    time.sleep(SAME_READING_S + 0.1)
    second = line()
    took = time.monotonic() - started
    span = SPAN.search(second)
    assert span is not None and 0 < float(span.group(1)) <= took, (second, took)


def test_the_monitor_panel_and_status_print_the_same_figures_for_the_same_samples(pd_job: tuple[str, Path]) -> None:
    """The Monitor's refreshes around a burst, then its snapshot as the Serving panel draws it and as `status` prints
    it: the same figures (`<100 ms`, means, tok/s, KV) in the same order, and the same span."""
    job_id, job_dir = pd_job

    async def observe() -> JobSnapshot:
        monitor = Monitor(None)
        try:
            await monitor.refresh({job_id: job_dir})
            await asyncio.to_thread(srt, "bench", str(job_dir), *BURST)
            return (await monitor.refresh({job_id: job_dir}))[0]
        finally:
            await monitor.aclose()

    snap = asyncio.run(observe())
    line = serving_faces.status_line(snap)
    shown = asyncio.run(serving_faces.panel_text(snap))
    said = serving_faces.figures(line)
    # the panel says why clients see more once, under its figures (`+40 ms: sglang-router sets no TCP_NODELAY`);
    # `status` says it beside TTFT without the figure: the reason is not a second measurement
    reason = client_ttft_reason(snap.serving) if snap.serving is not None else ""
    assert said == serving_faces.figures(shown.replace(reason, "")), (line, shown)
    assert said[-1].startswith("over the last") and "TTFT p50 -" not in line and "out 0 tok/s" not in line, line
