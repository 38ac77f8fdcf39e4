"""`srt-tui status` problem lines at the terminal's width (issue 21, leftovers of the new-operator passes): a line
naming a log (up to 176 characters: `decode_0 down (…) — log /scratch/…/decode_0.log: RuntimeError: …`) wrapped at
the terminal's edge, mid-word and under the job id. In a terminal (the width `status`'s table fits: `COLUMNS`
first) a path's middle folders give way to `…`, keeping its file name and the reason; what still does not fit
wraps whole words under the line's text. A pipe keeps every line whole, for the tools that read it."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from srt_tui.cli.jobs import print_table
from srt_tui.monitor import cells
from tests.monitor import frozen
from tests.monitor.ptys import read_lines
from tests.monitor.test_status_width import UNVERSIONED, _in_pty

#: the degraded AMD job's worker line, 176 characters in `status` (its reason: the log's last error line)
REASON = "RuntimeError: HIP error: an illegal memory access was encountered"


def _problems(width: int | None) -> list[str]:
    """`status`'s lines under its table for the frozen fleet at ``width``: the serving line, then the problems."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_table(frozen.fleet(), None, width=width)
    lines = out.getvalue().splitlines()
    return lines[1 + len(frozen.fleet()) :]


def _said(lines: list[str]) -> str:
    """What lines say, their wrapping undone (a wrapped line's next lines hang under its text)."""
    return " ".join(line.strip() for line in lines)


@pytest.mark.parametrize("width", [80, 100, 132, 160])
def test_problem_lines_fit_the_terminal_with_the_file_name_and_the_reason(width: int) -> None:
    lines = _problems(width)
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    assert all(line.startswith(("81", " ")) for line in lines), "\n".join(lines)  # wrapped under the text
    said = _said(lines)
    assert f"/decode_0.log: {REASON}" in said and "81240: decode_0 down (connection refused" in said, said
    assert "81199: failed: worker prefill_0 exited with code 3; log: /scratch/" in said, said
    assert said.endswith("/prefill_0.log"), said


def test_a_path_gives_way_in_its_middle_before_a_line_wraps_and_a_pipe_keeps_it() -> None:
    """At 160 columns the 176-character line fits once its log's path loses its middle folders; at 100 the failure's
    line does, its path losing no more folders than it must: one line each, every other word there. A pipe keeps
    every line whole."""
    whole = [f"{s.job_id}: {line}" for s in frozen.fleet() for line in cells.problems(s)]
    assert max(len(line) for line in whole) == 176  # the operator's longest
    assert [line for line in _problems(None) if not line.startswith("81234: serving")] == whole
    wide = _problems(160)
    worker = [line for line in wide if line.startswith("81240: decode_0")]
    assert worker == [f"81240: decode_0 down (connection refused (retry in 2.0 s)) — log /scratch/…/logs/decode_0.log: "
                      f"{REASON}"], wide  # fmt: skip
    failed = "81199: failed: worker prefill_0 exited with code 3; log: /scratch/…/outputs/81199/logs/prefill_0.log"
    assert failed in _problems(100)


def _failed_job(tmp_path: Path) -> tuple[dict[str, str], str]:
    """A local job under a long output directory that failed (its worker's exit and log in status.jsonl), indexed;
    the env that reads it and its problem line as a pipe gets it (167 characters)."""
    from tests.monitor.test_status_width import _state

    env = _state(tmp_path)
    state = Path(env["SRT_TUI_STATE_DIR"])
    job_dir = tmp_path / "a-rather-long-output-directory" / "srt-outputs" / "h100-2p1d-sglang-long-recipe-name-7"
    job_dir.mkdir(parents=True)
    for f in UNVERSIONED.iterdir():
        (job_dir / f.name).write_bytes(f.read_bytes())
    meta = json.loads((job_dir / "job.json").read_text())
    (job_dir / "job.json").write_text(json.dumps({**meta, "job_id": "local-f", "name": "failing"}))
    log = job_dir / "logs" / "decode_0.log"
    log.parent.mkdir()
    log.write_text("loading\nRuntimeError: CUDA error: an illegal memory access was encountered\n")
    event = {
        "stage": "failed",
        "time": "2026-03-01T11:05:00Z",
        "detail": f"worker decode_0 exited with code 3; log: {log}",
    }
    with open(job_dir / "status.jsonl", "a") as fh:
        fh.write(json.dumps(event) + "\n")
    with open(state / "jobs.jsonl", "a") as fh:
        fh.write(json.dumps({"job_id": "local-f", "job_dir": str(job_dir)}) + "\n")
    return env, f"local-f: failed: worker decode_0 exited with code 3; log: {log}"


def test_status_in_an_80_column_terminal_cuts_a_path_in_its_middle_and_a_pipe_keeps_it(tmp_path: Path) -> None:
    env, whole = _failed_job(tmp_path)
    assert len(whole) > 160
    lines = _in_pty({**env, "COLUMNS": "80"})
    failed = [line for line in lines if line.startswith("local-f: failed")]
    assert failed == ["local-f: failed: worker decode_0 exited with code 3; log: /tmp/…/decode_0.log"], "\n".join(lines)
    assert "local-f:   RuntimeError: CUDA error: an illegal memory access was encountered" in lines  # its reason
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    piped = subprocess.run(  # COLUMNS=80 and a pipe: the whole line, for the tools that read it
        [sys.executable, "-m", "srt_tui.cli", "status"], env={**env, "COLUMNS": "80"}, capture_output=True, text=True
    )
    assert whole in piped.stdout.splitlines(), piped.stdout


def _wait_in_pty(env: dict[str, str], columns: int) -> tuple[int, list[str]]:
    """`srt-tui wait local-f --for done`'s stderr in a pseudo-terminal ``columns`` wide (its own size, no `COLUMNS`),
    its stdout a pipe: `wait` says its lines on stderr, fitted to the terminal there; its exit code and lines."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    command = [sys.executable, "-m", "srt_tui.cli", "wait", "local-f", "--for", "done"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    lines = read_lines(master)
    assert proc.stdout is not None and proc.stdout.read() == b""
    return proc.wait(timeout=120), lines


def test_wait_fits_its_failure_lines_to_the_terminal_as_status_does_and_a_pipe_keeps_them(tmp_path: Path) -> None:
    """Operator pass (op11): `srt-tui wait`'s failure lines wrapped mid-word at 80 columns where `status`'s problem
    lines are fitted. `wait` says them with `status`'s fitting: a path's middle gives way, whole words wrap under the
    line's text, the reason whole; piped, every line whole."""
    env, whole = _failed_job(tmp_path)
    env.pop("COLUMNS", None)
    rc, lines = _wait_in_pty(env, 80)
    assert rc == 1, lines
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    assert lines[0] == "local-f: failed: worker decode_0 exited with code 3; log: /tmp/…/decode_0.log", lines
    at = next(i for i, line in enumerate(lines) if line.startswith("local-f ended (failed): worker decode_0"))
    assert lines[at + 1].startswith(" " * len("local-f ")) and lines[at + 1].strip().startswith("/"), lines
    assert "  RuntimeError: CUDA error: an illegal memory access was encountered" in lines, lines
    said = " ".join(line.strip() for line in lines[at:])  # its wrapping undone: every word, the path's middle cut
    assert said.startswith("local-f ended (failed): worker decode_0 exited with code 3; log: /tmp/…/"), said
    assert said.endswith("/h100-2p1d-sglang-long-recipe-name-7/logs/decode_0.log RuntimeError: CUDA error: an "
                         "illegal memory access was encountered"), said  # fmt: skip
    piped = subprocess.run(  # a pipe: the whole lines, for the tools that read them
        [sys.executable, "-m", "srt_tui.cli", "wait", "local-f", "--for", "done"],
        env={**env, "COLUMNS": "80"}, capture_output=True, text=True,
    )  # fmt: skip
    assert piped.returncode == 1 and whole in piped.stderr.splitlines(), piped.stderr
    assert f"local-f ended (failed): {whole.removeprefix('local-f: failed: ')}" in piped.stderr.splitlines()
