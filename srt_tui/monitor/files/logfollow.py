"""Follow a growing log file from its start (`wait --log-file`): copy what is new on each poll."""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import BinaryIO, TextIO

from srt_tui.core.jobdir.bounded import UnsafeFile, open_regular

#: Most bytes copied per poll, so a log that grows fast never starves the job checks between polls.
MAX_PER_POLL = 4 * 1024 * 1024


class LogFollower:
    """Copies a log to ``out`` as it grows: tolerates the file not existing yet (Slurm opens it when the
    job starts), restarts from the top if it is truncated, and never splits a UTF-8 character."""

    def __init__(self, path: Path, out: TextIO) -> None:
        self.path = path
        self.out = out
        self.offset = 0
        self.seen = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def poll(self, *, final: bool = False) -> int:
        """Copy what was appended since the last poll (all of it when ``final``); returns bytes copied."""
        try:  # a regular file only: a device or pipe in its place is never read (nor waited on)
            fh: BinaryIO = os.fdopen(open_regular(self.path, follow=True)[0], "rb")
        except FileNotFoundError:  # not there yet (or a link whose target Slurm has not opened)
            return 0
        except UnsafeFile as exc:
            self.out.write(f"srt-tui: not following {exc}\n")
            self.out.flush()
            return 0
        copied = 0
        with fh:
            self.seen = True
            size = os.fstat(fh.fileno()).st_size
            if size < self.offset:  # truncated or replaced: start again from the top
                self.offset = 0
                self._decoder.reset()
            fh.seek(self.offset)
            while self.offset < size and (final or copied < MAX_PER_POLL):
                chunk = fh.read(min(65536, size - self.offset))
                if not chunk:
                    break
                self.offset += len(chunk)
                copied += len(chunk)
                self.out.write(self._decoder.decode(chunk))
        if final:
            self.out.write(self._decoder.decode(b"", final=True))
        self.out.flush()
        return copied
