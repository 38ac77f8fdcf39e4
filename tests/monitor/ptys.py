"""What a command wrote to a pseudo-terminal (a tmux pane's view of it), for tests of terminal-fitted output."""

from __future__ import annotations

import contextlib
import os


def read_lines(master: int) -> list[str]:
    """Everything written to the terminal whose controlling end is ``master`` until the child closed its end, as
    lines; ``master`` is closed."""
    chunks = []
    with contextlib.suppress(OSError):  # EIO once the child closed its end
        while chunk := os.read(master, 65536):
            chunks.append(chunk)
    os.close(master)
    return b"".join(chunks).decode().replace("\r\n", "\n").splitlines()
