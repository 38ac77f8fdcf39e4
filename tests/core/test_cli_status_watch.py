"""`srt-tui status --watch`: the status again every --interval seconds until Ctrl-C, which ends it as it ends every
command (exit 130, one `srt-tui: interrupted` line, no traceback); a terminal gets the screen redrawn under a line
saying when, a pipe one block per refresh."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import time

import pytest

from srt_tui.cli.jobs import _fit_rows

pytestmark = pytest.mark.cli

COMMAND = [sys.executable, "-m", "srt_tui.cli", "status", "--watch", "-n", "0.5"]


def _read_until(fd: int, wanted: bytes, count: int, timeout: float = 30) -> bytes:
    """What `fd` gives until `wanted` has appeared `count` times (or the timeout)."""
    got = b""
    deadline = time.monotonic() + timeout
    while got.count(wanted) < count and time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the pty's other end closed
            break
        if not chunk:
            break
        got += chunk
    return got


def test_a_pipe_gets_a_block_per_refresh_and_ctrl_c_ends_it_cleanly() -> None:
    proc = subprocess.Popen(COMMAND, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    out = _read_until(proc.stdout.fileno(), b"--- ", 3)  # the third block's start: two whole blocks read
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    assert out.count(b"no jobs known yet") >= 2, out
    assert proc.returncode == 130
    assert b"Traceback" not in err + rest and err.decode().splitlines() == ["srt-tui: interrupted"], err


def test_a_terminal_is_redrawn_under_a_line_saying_how_often() -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command on the pty, 10 rows tall
        os.execv(sys.executable, COMMAND)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 10, 100, 0, 0))
    try:
        out = _read_until(fd, b"\x1b[2J", 3)  # the third redraw's start: two whole screens read
    finally:
        os.kill(pid, signal.SIGINT)
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert out.count(b"every 0.5 s \xc2\xb7 srt-tui status") >= 2, out
    assert os.waitstatus_to_exitcode(status) == 130


def test_a_redrawn_screen_is_cut_to_the_terminal_saying_how_much_is_left() -> None:
    text = "".join(f"line {i}\n" for i in range(10))
    assert _fit_rows(text, 20) == text
    cut = _fit_rows(text, 4).splitlines()
    assert cut == ["line 0", "line 1", "line 2", "(+7 more lines: a taller terminal, or name the jobs)"]


@pytest.mark.parametrize("interval", ["0", "inf", "nan", "soon"])
def test_an_interval_out_of_range_is_refused_naming_the_option(interval: str) -> None:
    proc = subprocess.run([*COMMAND[:-1], interval], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "-n/--interval" in proc.stderr and "Traceback" not in proc.stderr
