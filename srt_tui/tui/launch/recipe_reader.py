"""The recipe library read in a process of its own, started by `srt-tui` before Textual is imported.

Parsing and validating a library (srtctl's is 555 files) takes the recipe models' import and ~1 s of CPU: in
the app's process that shares one interpreter lock with painting, so the first rows waited for it and every key
was slow while it read. The reader runs on another core from the first millisecond; the app paints, takes the
rows as they come and loads a recipe's model only when one is chosen.

    python -m srt_tui.tui.launch.recipe_reader ROOTS_JSON [--profiles]

writes one JSON line per batch on stdout, `{"read": i, "total": n, "entries": [RecipeEntry.facts()…]}`, the
last with `read == total`, and exits 0. With `--profiles` (the wizard opens on the profile list) its first line
is `{"profiles": [ProfileRow.facts()…]}`: the rows of every user and shipped profile, which the app would
otherwise wait for the profile models to list. It is in a session of its own (the terminal's Ctrl-C is the app's to
handle) and stops at its next write when the app has gone.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import select
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from srt_tui.tui.launch.profile_facts import ProfileRow
    from srt_tui.tui.launch.recipe_catalog import LibraryRoot, RecipeEntry

#: one line of the reader: a batch (entries, files read, files in all), or the profile rows
ReaderLine = tuple[list["RecipeEntry"], int, int] | list["ProfileRow"]
#: a batch line longer than this is refused (a library's largest folder is well under a megabyte of facts)
MAX_LINE = 32 << 20
#: how much of the reader's stderr says why it stopped
STDERR_TAIL = 4096


class ReaderFailed(Exception):
    """The reader stopped before its last batch, or sent something that is not a batch."""


@dataclass
class RecipeReader:
    """A running reader of `roots` (and of the profiles, when `profiles`), and the file its stderr goes to (read
    back only to say why it stopped)."""

    roots: list[LibraryRoot]
    proc: subprocess.Popen[bytes]
    stderr: IO[bytes]
    profiles: bool = False
    #: what `ready` read and did not take (whole lines, then the start of the next one), read first by `batches`
    _buffer: bytearray = field(default_factory=bytearray)

    @classmethod
    def start(cls, roots: list[LibraryRoot], profiles: bool = False) -> RecipeReader | None:
        """Start reading `roots`, the profile list first when `profiles` (None when there is nothing to read or
        no process can be started: the app then reads them itself)."""
        if not roots:
            return None
        # unnamed (nothing on a shared path; a full pipe never stalls the reader); it lives as long as the reader
        stderr = tempfile.TemporaryFile()  # noqa: SIM115
        command = [sys.executable, "-m", __name__, json.dumps([[r.prefix, str(r.path)] for r in roots])]
        try:
            proc = subprocess.Popen(  # noqa: S603 - this interpreter, this module
                command + (["--profiles"] if profiles else []),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True,
            )  # fmt: skip
        except OSError:
            stderr.close()
            return None
        reader = cls(roots, proc, stderr, profiles)
        atexit.register(reader.close)
        return reader

    def ready(self, enough: int) -> list[ReaderLine]:
        """What the reader has sent so far, without waiting, up to the batch that makes `enough` entries: its
        batches, and its profile rows (a list of `ProfileRow`) when it was asked for them. The screen takes them
        before its first frame, so a reader ahead of the app (a warm cache answers in ~0.1 s, the app paints in
        ~0.3 s) has its rows in that frame, not in one drawn after it. Call it before `batches`, which goes on from
        where this stopped; ReaderFailed as there."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        # `batches` has not read yet (nothing sits in the pipe's Python buffer): the descriptor says what is there
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 1 << 16)
            if not chunk:  # it ended: `batches` says how
                break
            self._buffer += chunk
            if len(self._buffer) > MAX_LINE and b"\n" not in self._buffer:
                raise ReaderFailed(f"a batch longer than {MAX_LINE} bytes")
        out: list[ReaderLine] = []
        entries = 0
        while entries < enough and b"\n" in self._buffer:
            got = self._parse(self._line())
            out.append(got)
            if isinstance(got, tuple):
                entries += len(got[0])
                if got[1] >= got[2]:
                    break
        return out

    def batches(
        self, on_profiles: Callable[[list[ProfileRow]], None] | None = None
    ) -> Iterator[tuple[list[RecipeEntry], int, int]]:
        """(entries, files read, files in all) as the reader sends them, after any `ready` took; ReaderFailed when
        it stops early. The profile rows (first, when the reader was asked for them) go to `on_profiles`."""
        assert self.proc.stdout is not None
        while line := self._line():
            if not line.endswith(b"\n"):
                raise ReaderFailed(f"a batch longer than {MAX_LINE} bytes")
            got = self._parse(line)
            if isinstance(got, tuple):
                yield got
                if got[1] >= got[2]:
                    return
            elif on_profiles is not None:
                on_profiles(got)
        raise ReaderFailed(f"the recipe reader stopped (exit {self.proc.wait()}){self._last_words()}")

    def _line(self) -> bytes:
        """The next line: from what `ready` read and did not take, then from the pipe."""
        assert self.proc.stdout is not None
        if b"\n" in self._buffer:
            line, _, rest = bytes(self._buffer).partition(b"\n")
            self._buffer = bytearray(rest)
            return line + b"\n"
        head, self._buffer = bytes(self._buffer), bytearray()
        return head + self.proc.stdout.readline(MAX_LINE - len(head))

    @staticmethod
    def _parse(line: bytes) -> ReaderLine:
        """One line of the reader: a batch, or the profile rows; ReaderFailed when it is neither."""
        from srt_tui.tui.launch.recipe_catalog import RecipeEntry

        try:
            data = json.loads(line)
            if isinstance(data, dict) and "profiles" in data:
                from srt_tui.tui.launch.profile_facts import ProfileRow  # the profile table's: only when it is shown

                return [ProfileRow.from_facts(d) for d in data["profiles"]]
            entries = [RecipeEntry.from_facts(d) for d in data["entries"]]
            return entries, int(data["read"]), int(data["total"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ReaderFailed(f"the recipe reader sent something else than a batch ({exc})") from exc

    def _last_words(self) -> str:
        """`: <its last stderr line>`, or ''."""
        with contextlib.suppress(OSError):
            self.stderr.seek(0, 2)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - STDERR_TAIL))
            lines = self.stderr.read().decode("utf-8", "replace").strip().splitlines()
            if lines:
                return f": {lines[-1]}"
        return ""

    def close(self) -> None:
        """Stop the reader if it still runs, and let go of its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.proc.wait(5)
        for stream in (self.proc.stdout, self.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


#: the reader the command line started for the app, until the Launch screen claims it
_early: RecipeReader | None = None


def start_early(profiles: bool = False) -> None:
    """Start reading the default library now (before Textual is imported) for the Launch screen to claim, the
    profile list first when the wizard opens on it."""
    global _early  # noqa: PLW0603 - one hand-over from the command line to the first Launch screen
    from srt_tui.tui.launch.recipe_catalog import library_roots

    with contextlib.suppress(OSError):
        _early = RecipeReader.start(library_roots(), profiles)


def early_profiles() -> bool:
    """Whether the reader started early sends the profile list (the Profile step then waits for its rows)."""
    return _early is not None and _early.profiles


def claim(roots: list[LibraryRoot]) -> RecipeReader | None:
    """The reader started early, when it reads exactly `roots` (once: a later caller reads for itself)."""
    global _early  # noqa: PLW0603
    reader, _early = _early, None
    if reader is not None and [(r.prefix, r.path) for r in reader.roots] != [(r.prefix, r.path) for r in roots]:
        reader.close()
        return None
    return reader


def main(argv: Sequence[str]) -> int:
    """The reader process: the profile rows when asked (`--profiles`), then the roots given as JSON scanned
    through the user's cache, a JSON line per batch."""
    # a process that reads and exits: the collector found nothing to free in it (srtctl's 555 files end at the same
    # peak memory without it), and its passes were ~15 % of a cold read's CPU, some of it before the first rows
    gc.disable()
    from srt_tui.state.recipe_cache import RecipeCache
    from srt_tui.tui.launch.recipe_catalog import LibraryRoot, scan_library

    roots = [LibraryRoot(str(prefix), Path(path)) for prefix, path in json.loads(argv[0])]
    out = sys.stdout.buffer

    def line(data: dict[str, object]) -> None:
        out.write(json.dumps(data, separators=(",", ":")).encode() + b"\n")
        out.flush()

    def send(entries: list[RecipeEntry], read: int, total: int) -> None:
        line({"read": read, "total": total, "entries": [e.facts() for e in entries]})

    try:
        if "--profiles" in argv[1:]:
            from srt_tui.core.spec.profile import list_profile_files
            from srt_tui.tui.launch.profile_facts import ProfileRow

            line({"profiles": [row.facts() for row in ProfileRow.listed(list_profile_files())]})
        scan_library(roots, send, cache=RecipeCache().load(), every=0.1)
    except BrokenPipeError:  # the app has gone
        with contextlib.suppress(OSError):
            sys.stdout = None  # no flush of a closed pipe at exit
        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
