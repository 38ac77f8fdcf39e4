"""`srt-tui` without a command and without a terminal (issue 21, new-operator pass op12): `srt-tui </dev/null >f 2>&1`,
`ssh login srt-tui` without -t, cron, started the whole TUI, which wrote its escape codes into the file and waited for
keys that never came (`timeout 10 srt-tui … </dev/null` exited 124). It now says which of its streams is no terminal
and what to run instead, and exits 2, before any of the app (or its recipe reader process) starts: as `apply` refuses
to ask on no terminal, and where lazygit or k9s end on `open /dev/tty: no such device or address`. Real processes,
their streams pipes, /dev/null or a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.cli

#: the wait for a process that should end at once; one that started the TUI never does
BOUND_S = 60


def _srt_tui(*args: str, stdin: int, stdout: int, stderr: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm-256color"}
    cmd = [sys.executable, "-m", "srt_tui", *args]
    return subprocess.Popen(cmd, env=env, stdin=stdin, stdout=stdout, stderr=stderr)


def test_no_terminal_at_all_is_one_line_and_exit_2() -> None:
    """stdin /dev/null, stdout and stderr pipes: ssh without -t, cron, `</dev/null >f 2>&1`."""
    proc = _srt_tui("-p", "local", stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=BOUND_S)
    finally:
        if proc.poll() is None:  # the TUI started: it waits for keys forever
            proc.kill()
            proc.wait()
    assert out == b""  # no escape codes
    assert err.decode().splitlines() == [
        "srt-tui: error: the TUI needs a terminal, and stdin, stdout and stderr are not one here (a pipe, a file, "
        "`ssh host srt-tui` without -t, cron); use a command instead, e.g. `srt-tui status` or `srt-tui jobs` "
        "(`srt-tui --help` lists them), or `ssh -t` for the TUI"
    ]
    assert proc.returncode == 2


def test_only_the_stream_that_is_no_terminal_is_named() -> None:
    """stdout and stderr on a terminal, stdin from /dev/null (`srt-tui </dev/null`): stdin alone is named."""
    main, tty = pty.openpty()
    proc = _srt_tui(stdin=subprocess.DEVNULL, stdout=tty, stderr=tty)
    os.close(tty)
    said = b""
    try:
        proc.wait(timeout=BOUND_S)
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the pseudo-terminal's other side is closed, all read
                break
            if not chunk:
                break
            said += chunk
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)
    assert proc.returncode == 2
    text = said.decode().replace("\r\n", "\n")
    assert text.startswith("srt-tui: error: the TUI needs a terminal, and stdin is not one here"), text
    assert "\x1b[" not in text  # the app never drew
