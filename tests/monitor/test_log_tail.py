"""LogTail on real files: the tail of a large file first, new bytes only, a partial last line held,
truncation and rotation read again, a missing file reported as waiting, a runaway writer skipped."""

from __future__ import annotations

import os
from pathlib import Path

from srt_tui.monitor.files.log_tail import LogTail, keep_colours, strip_ansi


def test_a_missing_file_is_waiting_then_read_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "decode_0.log"
    tail = LogTail(path)
    assert tail.read().missing
    path.parent.mkdir()
    path.write_text("one\ntwo\n")
    chunk = tail.read()
    assert not chunk.missing and chunk.lines == ["one", "two"] and chunk.skipped_bytes == 0


def test_new_bytes_only_and_the_partial_line_completed(tmp_path: Path) -> None:
    path = tmp_path / "w.log"
    path.write_text("a\nb\npart")
    tail = LogTail(path)
    first = tail.read()
    assert first.lines == ["a", "b"] and first.partial == "part"
    with open(path, "a") as fh:
        fh.write("ial\r\nc\r\nprogress 10%\rprogress 90%\n")
    second = tail.read()
    assert second.lines == ["partial", "c", "progress 90%"] and second.partial == ""
    assert tail.read().lines == []


def test_a_large_file_opens_at_its_tail_on_a_whole_line(tmp_path: Path) -> None:
    """200 MB (sparse: the first 199 MB are a hole) read by its last MiB only, starting on a whole line."""
    path = tmp_path / "big.log"
    with open(path, "wb") as fh:
        fh.seek(199 * 1024 * 1024)
        fh.write(b"".join(b"%09d" % n + b"x" * 90 + b"\n" for n in range(20_000)))  # 100 bytes a line
    size = os.path.getsize(path)
    tail = LogTail(path, initial_bytes=1024 * 1024)
    chunk = tail.read()
    assert chunk.lines[-1].startswith("000019999") and tail.offset == size
    assert all(len(x) == 99 and "\0" not in x for x in chunk.lines), "the first line is whole, not a cut end"
    assert len(chunk.lines) == 1024 * 1024 // 100
    assert chunk.skipped_bytes == size - 100 * len(chunk.lines)


def test_truncation_and_rotation_start_over(tmp_path: Path) -> None:
    path = tmp_path / "router.log"
    path.write_text("old 1\nold 2\n")
    tail = LogTail(path)
    assert tail.read().lines == ["old 1", "old 2"]
    path.write_text("new\n")  # truncated in place (copytruncate)
    chunk = tail.read()
    assert chunk.restarted == "truncated" and chunk.lines == ["new"]
    path.rename(tmp_path / "router.log.1")  # rotated: a new file under the old name
    path.write_text("rotated 1\nrotated 2 and more\n")
    chunk = tail.read()
    assert chunk.restarted == "replaced" and chunk.lines == ["rotated 1", "rotated 2 and more"]


def test_a_writer_faster_than_one_read_is_skipped_ahead(tmp_path: Path) -> None:
    path = tmp_path / "fast.log"
    path.write_text("start\n")
    tail = LogTail(path, initial_bytes=1000, max_read_bytes=10_000)
    tail.read()
    with open(path, "a") as fh:
        fh.write("".join(f"{n:09d}\n" for n in range(5000)))  # 50,000 bytes behind
    chunk = tail.read()
    assert chunk.lines[-1] == "000004999" and len(chunk.lines) == 100
    assert chunk.skipped_bytes == 50_000 - 1000


def test_a_line_without_end_is_cut_and_shown(tmp_path: Path) -> None:
    path = tmp_path / "dump.log"
    path.write_text("{" + "x" * 100_000)
    chunk = LogTail(path, max_line_chars=1000).read()
    assert len(chunk.lines) == 1 and chunk.lines[0].endswith("(99,001 more characters)")


def test_colours_are_kept_and_every_other_escape_removed() -> None:
    raw = "\x1b]0;title\x07\x1b[2mtime\x1b[0m \x1b[1;32mINFO\x1b[0m\x1b[2K\x1b(B ok\x07\x1b"
    assert keep_colours(raw) == "\x1b[2mtime\x1b[0m \x1b[1;32mINFO\x1b[0m ok"
    assert strip_ansi(raw + "\tx") == "time INFO ok    x"
