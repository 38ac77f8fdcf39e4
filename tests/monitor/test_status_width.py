"""`srt-tui status` at the terminal's width (op10 defect 7: a 106-column table wrapped every row of an 80-column
pane and split `ELAPSED` into `EL`/`APSED`, and `COLUMNS=80` changed nothing): columns give way whole, by
priority, in a terminal; a pipe keeps every column for the tools that parse it."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import pty
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from srt_tui.cli import status_table
from srt_tui.cli.jobs import print_table
from tests.conftest import REPO
from tests.monitor import frozen
from tests.monitor.ptys import read_lines

HEADERS = [c.header for c in status_table.COLUMNS]
UNVERSIONED = Path(__file__).parent / "fixtures" / "jobdir-unversioned"


def _headers(line: str) -> list[str]:
    """The headers of a header line, as a reader splits it (two blanks or more between columns)."""
    return re.split(r"\s{2,}", line.strip())


def _table(width: int | None) -> list[str]:
    """`status`'s lines for the frozen fleet (a serving job first: its figures' line too) at ``width``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_table([frozen.with_serving(frozen.nvidia()), *frozen.fleet()], None, width=width)
    return out.getvalue().splitlines()


@pytest.mark.parametrize("width", [80, 100, 60])
def test_the_table_and_serving_lines_fit_the_width_with_whole_headers(width: int) -> None:
    lines = _table(width)
    rows = 1 + 1 + len(frozen.fleet())  # the header, the serving job, the fleet
    serving = [i for i, x in enumerate(lines) if ": serving: " in x]
    fitted = lines[: serving[0] + 1] + [x for x in lines[serving[0] + 1 :] if x.startswith(" ")]
    assert all(len(x) <= width for x in fitted), "\n".join(fitted)
    kept = _headers(lines[0])
    assert kept[:2] == ["JOB", "NAME"] and all(h in HEADERS for h in kept), kept  # whole, in their order
    assert kept == [h for h in HEADERS if h in kept] and "ELAPSED" in kept or width < 80, kept
    assert len(kept) < len(HEADERS), kept  # something gave way: the fleet is 130 columns wide
    assert len([x for x in lines[:rows] if x.startswith("8")]) == rows - 1  # one line per job: nothing wrapped


def test_a_wide_terminal_or_a_pipe_keeps_every_column_whole() -> None:
    # as wide as the whole table (the fleet's durations, counted to today's clock, and its queued job's `queued …`)
    whole = max(len(line) for line in _table(None)[: 1 + 1 + len(frozen.fleet())])
    for width in (whole, None):
        lines = _table(width)
        assert _headers(lines[0]) == HEADERS, lines[0]
        assert "mi300x-vllm-moriio-colocated" in "\n".join(lines)  # no name cut
    assert _table(None)[:7] == _table(200)[:7]  # the pipe's table is the unfitted one


#: a running job with a long name and a queued one whose STAGE and ELAPSED have shorter wordings (`status_table.SHORT`)
ROWS = [
    {"job": "81240", "name": "mi300x-vllm-moriio-colocated", "state": "RUNNING", "stage": "serving",
     "healthy": "P1/1 D1/1", "router": "up P1/1 D1/1", "rate": "5.5", "requests": "3.6k", "errors": "4",
     "elapsed": "1h02m", "gpu": "65% avg"},
    {"job": "81262", "name": "mi300x-agg", "state": "PENDING",
     "stage": "pending (Resources, Slurm estimates start in ~10m)", "stage:short": "Resources, ~10m", "healthy": "-",
     "router": "direct", "rate": "-", "requests": "-", "errors": "-", "elapsed": "queued 2m10s",
     "elapsed:short": "q 2m10s", "gpu": "-"},
]  # fmt: skip


def test_the_width_left_over_goes_to_the_cut_name_first() -> None:
    """At 100 columns NAME read `mi300x-vllm-…` beside blank cells (`status` cut it to 16 once a column left, STAGE
    as wide as its longest wording though it showed the shorter): the jobs list's rule fits the shorter wordings, then
    `widen` gives the width left over to the columns cut, NAME first; a shorter wording is shown whole, never cut."""
    lines = status_table.render(ROWS, [c.key for c in status_table.COLUMNS], 100).splitlines()
    assert all(len(x) <= 100 for x in lines), "\n".join(lines)
    assert "ROUTER" not in lines[0] and lines[1].split()[1] == "mi300x-vllm-moriio-colocated", "\n".join(lines)
    assert "  Resources, ~10m  " in lines[2] and lines[2].endswith("  q 2m10s"), lines[2]


def _state(tmp_path: Path) -> dict[str, str]:
    """Three local jobs (copies of the unversioned job dir fixture) in an index, and the env that reads it."""
    state = tmp_path / "state"
    state.mkdir()
    with open(state / "jobs.jsonl", "w") as fh:
        for name in ("h100-2p1d-sglang-long-recipe-name", "b", "c"):
            job_dir = tmp_path / name
            shutil.copytree(UNVERSIONED, job_dir)
            meta = json.loads((job_dir / "job.json").read_text())
            (job_dir / "job.json").write_text(json.dumps({**meta, "job_id": f"local-{name[:1]}", "name": name}))
            fh.write(json.dumps({"job_id": f"local-{name[:1]}", "job_dir": str(job_dir)}) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(SRT_TUI_STATE_DIR=str(state), SRT_TUI_OUTPUT_DIR=str(tmp_path / "out"), NO_COLOR="1")
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), SRT_TUI_CONFIG_DIR=str(tmp_path / "config"))
    env["PYTHONPATH"] = str(REPO)
    return env


def _in_pty(env: dict[str, str]) -> list[str]:
    """`srt-tui status`'s stdout lines in a pseudo-terminal (stdout is a terminal, as in a tmux pane)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "srt_tui.cli", "status"], env=env, stdout=slave, stderr=slave)
    os.close(slave)
    lines = read_lines(master)
    assert proc.wait(timeout=120) == 0, lines
    return lines


def test_status_in_an_80_column_terminal_fits_it_and_a_pipe_keeps_every_column(tmp_path: Path) -> None:
    env = _state(tmp_path)
    lines = _in_pty({**env, "COLUMNS": "80"})
    header = next(i for i, x in enumerate(lines) if x.startswith("JOB"))
    table = lines[header : header + 4]
    assert all(len(x) <= 80 for x in table) and "Traceback" not in "\n".join(lines), "\n".join(lines)
    kept = _headers(table[0])
    assert all(h in HEADERS for h in kept) and len(kept) < len(HEADERS), kept  # whole headers; some gave way
    wide = _in_pty({**env, "COLUMNS": "132"})
    assert _headers(next(x for x in wide if x.startswith("JOB"))) == [h for h in HEADERS if h != "GPU UTIL"]
    piped = subprocess.run(  # COLUMNS=80 and a pipe: every column, for the tools that parse it
        [sys.executable, "-m", "srt_tui.cli", "status"], env={**env, "COLUMNS": "80"}, capture_output=True, text=True
    )
    assert _headers(piped.stdout.splitlines()[0]) == [h for h in HEADERS if h != "GPU UTIL"], piped.stdout


def test_status_watch_redraws_an_80_column_pane_with_rows_that_fit(tmp_path: Path) -> None:
    """`status --watch` in a pane 80 columns wide (the terminal's own size, no COLUMNS): the redrawn table fits it,
    each header whole (it split `EL`/`APSED`)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    command = [sys.executable, "-m", "srt_tui.cli", "status", "--watch", "-n", "0.5"]
    proc = subprocess.Popen(command, env=_state(tmp_path), stdout=slave, stderr=slave)
    os.close(slave)
    got = b""
    deadline = time.monotonic() + 60
    try:
        while got.count(b"\x1b[2J") < 3 and time.monotonic() < deadline:  # the third redraw: two whole screens
            got += os.read(master, 65536)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        os.close(master)
    screen = got.decode().split("\x1b[2J")[1].replace("\r\n", "\n").splitlines()
    header = next(i for i, x in enumerate(screen) if x.startswith("JOB"))
    assert all(len(x) <= 80 for x in screen[header : header + 4]), "\n".join(screen)
    kept = _headers(screen[header])
    assert all(h in HEADERS for h in kept) and "ELAPSED" in kept and len(kept) < len(HEADERS), kept


@pytest.mark.parametrize("width", [80, 120, None])
def test_a_queued_jobs_stage_says_slurms_estimate_at_every_width(width: int | None) -> None:
    """s34: `pending (Resources, starts in ~3h59m)` read as a fact, and in a terminal narrower than the whole row it
    read `pending …`: Slurm's estimate said as one, whole where there is room (a pipe, the job view's words), else
    its short wording (`Slurm est. ~3h59m`: STATE says PENDING, the reason is on the line under the table)."""
    from dataclasses import replace
    from datetime import datetime, timedelta

    from srt_tui.monitor.model import iso_utc

    pending = next(s for s in frozen.fleet() if s.stage == "pending")
    soon = (datetime.now().astimezone() + timedelta(hours=3, minutes=59, seconds=30)).timestamp()
    snaps = [replace(pending, expected_start_at=iso_utc(soon)), replace(pending, job_id="81263", expected_start_at="")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_table([frozen.with_serving(frozen.nvidia()), *snaps], None, width=width)
    rows = {line.split()[0]: line for line in out.getvalue().splitlines()[1:4]}
    said = "pending (Resources, Slurm estimates start in ~3h59m)" if width is None else "Slurm est. ~3h59m"
    assert said in rows["81262"] and "starts in" not in rows["81262"], rows["81262"]
    assert "est." not in rows["81263"] and "estimates" not in rows["81263"], rows["81263"]  # Slurm made none
