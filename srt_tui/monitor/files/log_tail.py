"""Follow one log file by its new bytes, as `tail -F` does: the last lines first, then what is appended.

Headless (no Textual): the log viewer calls `LogTail.read()` from one worker thread. Memory is bounded
whatever the file does: the first read takes only the file's last ``initial_bytes`` (a 200 MB log opens
at once), one read takes at most ``max_read_bytes`` (a writer faster than that is skipped ahead, and the
chunk says how many bytes were skipped), a line is cut at ``max_line_chars``. A truncated or replaced
(rotated) file is read again from its start (its tail when it is already large); a file that does not
exist yet is reported as missing, not as an error.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from srt_tui.core.jobdir.bounded import read_range

#: what the first read (and a read after a skip, truncation or rotation) takes from the file's end
INITIAL_BYTES = 1024 * 1024
#: a backlog larger than this is skipped: the reader jumps to the tail rather than falling behind
MAX_READ_BYTES = 16 * 1024 * 1024
#: a longer line is cut (a JSON dump on one line must not hold megabytes per row)
MAX_LINE_CHARS = 16 * 1024
#: ANSI escape sequences: CSI (colours, cursor moves), OSC (titles, links), charset selections, 2-byte ESCs
ANSI_ESCAPE = r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]+[0-~]|[@-Z\\-_])"
_TOKEN = re.compile(ANSI_ESCAPE + r"|[\x00-\x08\x0a-\x1f\x7f]")
_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def keep_colours(line: str) -> str:
    """``line`` with its colour codes (SGR) kept and every other escape sequence or control byte removed."""
    return _TOKEN.sub(lambda m: m.group() if _SGR.fullmatch(m.group()) else "", line)


def strip_ansi(line: str) -> str:
    """``line`` as plain text: every escape sequence and control byte removed, tabs expanded."""
    return _TOKEN.sub("", line).expandtabs()


@dataclass(frozen=True)
class TailChunk:
    """What one read found."""

    #: complete lines, decoded, without their line end (a `\r`-overwritten line keeps its last version)
    lines: list[str] = field(default_factory=list)
    #: the last line so far, not ended by a newline yet ("" when none): shown, then replaced once complete
    partial: str = ""
    #: the file does not exist (yet)
    missing: bool = False
    #: why reading started over from the file's start or tail: "", "truncated", "replaced"
    restarted: str = ""
    #: bytes not read before these lines (the start of a large file, or a backlog skipped to keep up)
    skipped_bytes: int = 0
    #: the file exists but cannot be read (the reason)
    error: str = ""


def _decode(raw: bytes, max_chars: int, errors: str = "replace") -> str:
    line = raw.decode("utf-8", errors=errors).rstrip("\r")
    if "\r" in line:  # a progress bar rewrote the line: a terminal shows its last version
        line = line.rsplit("\r", 1)[1]
    if len(line) > max_chars:
        line = f"{line[:max_chars]} … ({len(line) - max_chars:,} more characters)"
    return line


class LogTail:
    """Incremental reader of ``path``; `read()` returns what arrived since the previous call."""

    def __init__(
        self,
        path: Path,
        *,
        initial_bytes: int = INITIAL_BYTES,
        max_read_bytes: int = MAX_READ_BYTES,
        max_line_chars: int = MAX_LINE_CHARS,
    ) -> None:
        self.path = path
        self.initial_bytes = initial_bytes
        self.max_read_bytes = max(max_read_bytes, initial_bytes)
        self.max_line_chars = max_line_chars
        self.offset: int | None = None  # None: the next read starts at the file's tail
        self._identity: tuple[int, int] | None = None
        self._partial = b""

    def read(self) -> TailChunk:
        """The lines appended since the last read (the file's last lines on the first call)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self.offset, self._identity, self._partial = None, None, b""
            return TailChunk(missing=True)
        except OSError as exc:
            return TailChunk(error=exc.strerror or str(exc))
        restarted = ""
        identity = (st.st_dev, st.st_ino)
        if self._identity is not None and identity != self._identity:
            restarted, self.offset = "replaced", None
        elif self.offset is not None and st.st_size < self.offset:
            restarted, self.offset = "truncated", None
        self._identity = identity
        skipped = 0
        if self.offset is None or st.st_size - self.offset > self.max_read_bytes:
            start = max(0, st.st_size - self.initial_bytes)
            skipped = start - (self.offset or 0) if self.offset is not None else start
            if self.offset is None or skipped:
                self._partial = b""
            self.offset, cut_first = start, start > 0
        else:
            cut_first = False
        try:  # one byte before the tail: when it is a newline, the tail starts on a whole line
            start = self.offset - 1 if cut_first else self.offset
            data, _ = read_range(self.path, start, st.st_size - self.offset + (1 if cut_first else 0), follow=True)
        except OSError as exc:  # a device or pipe where a log belongs is refused by the bounded reader
            return TailChunk(error=exc.strerror or str(exc))
        self.offset += len(data) - (1 if cut_first else 0)
        if cut_first:  # drop the line the tail starts inside of
            cut = data.find(b"\n") + 1
            if cut == 0:  # not one newline in the tail: it is all the middle of one long line
                cut = len(data)
            skipped += cut - 1
            data = data[cut:]
        parts = (self._partial + data).split(b"\n")
        self._partial = parts.pop()
        if len(self._partial) > 4 * self.max_line_chars:  # an endless line: shown now, cut
            parts.append(self._partial)
            self._partial = b""
        lines = [_decode(p, self.max_line_chars) for p in parts]
        # a partial line may end inside a UTF-8 character: its bytes wait for the rest, not shown as �
        partial = _decode(self._partial, self.max_line_chars, "ignore") if self._partial else ""
        return TailChunk(lines=lines, partial=partial, restarted=restarted, skipped_bytes=max(0, skipped))
