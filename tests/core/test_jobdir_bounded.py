"""The bounded reader of job-directory files: regular files only, a size cap per kind, bad UTF-8 tolerated.

Devices, FIFOs and links are real ones (`/dev/zero`, `os.mkfifo`, `os.symlink`), huge files are real
sparse files; a read that would block runs in a thread that must come back.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.jobdir.bounded import CAPS, UnsafeFile, read_bytes, read_range, read_tail, read_text
from srt_tui.core.jobdir.contract import JobDirError, read_job_meta, read_plan
from srt_tui.core.jobdir.events import append_event, read_events


def _returns(call: Callable[[], Any]) -> Any:
    """``call()``'s value or exception, failing (instead of hanging) if it does not return in 10 s."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "the read blocked"
    return box[0]


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_bytes(b'{"a": 1}')
    assert read_bytes(tmp_path / "plan.json", "plan") == b'{"a": 1}'


def test_bad_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "status.jsonl").write_bytes(b'{"stage": "x\xff"}\n\xfe\n')
    assert read_text(tmp_path / "status.jsonl", "status") == '{"stage": "x\ufffd"}\n\ufffd\n'
    assert [e.stage for e in read_events(tmp_path)] == ["x\ufffd"]


@pytest.mark.parametrize("follow", [False, True])
def test_a_link_to_a_device_is_refused(tmp_path: Path, follow: bool) -> None:
    os.symlink("/dev/zero", tmp_path / "plan.json")
    err = _returns(lambda: read_bytes(tmp_path / "plan.json", "plan", follow=follow))
    assert isinstance(err, UnsafeFile) and "symbolic link" in err.why  # followed or not: never read
    assert str(tmp_path / "plan.json") in str(err)


def test_a_log_link_is_followed_inside_its_job_directory_only(tmp_path: Path) -> None:
    logs = tmp_path / "job" / "logs"
    logs.mkdir(parents=True)
    (logs / "slurm.log").write_text("line\n")
    (logs / "sweep_7.log").symlink_to("slurm.log")  # srt-tui's own link, srtctl's name for the log
    (tmp_path / "secret").write_text("key\n")
    (logs / "planted.log").symlink_to(tmp_path / "secret")
    (logs / "fifo").mkdir()
    os.mkfifo(logs / "fifo" / "p")
    (logs / "to-fifo.log").symlink_to("fifo/p")
    assert read_tail(logs / "sweep_7.log", 100, follow=True) == b"line\n"
    with pytest.raises(UnsafeFile, match="out of its job directory"):
        read_tail(logs / "planted.log", 100, follow=True)
    err = _returns(lambda: read_tail(logs / "to-fifo.log", 100, follow=True))
    assert isinstance(err, UnsafeFile) and "named pipe" in err.why


def test_a_device_itself_is_refused() -> None:
    err = _returns(lambda: read_bytes(Path("/dev/zero"), "status"))
    assert isinstance(err, UnsafeFile) and "character device" in err.why


@pytest.mark.parametrize("read", ["bytes", "tail", "range"])
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, read: str) -> None:
    fifo = tmp_path / "status.jsonl"
    os.mkfifo(fifo)
    calls: dict[str, Callable[[], Any]] = {
        "bytes": lambda: read_bytes(fifo, "status"),
        "tail": lambda: read_tail(fifo, 1024, follow=True),
        "range": lambda: read_range(fifo, 0, 1024, follow=True),
    }
    err = _returns(calls[read])
    assert isinstance(err, UnsafeFile) and "named pipe" in err.why


def test_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "job.json").mkdir()
    err = _returns(lambda: read_bytes(tmp_path / "job.json", "job"))
    assert isinstance(err, UnsafeFile) and "directory" in err.why


def test_a_huge_sparse_file_is_refused_by_its_size(tmp_path: Path) -> None:
    huge = tmp_path / "endpoints.json"
    with open(huge, "wb") as fh:
        fh.truncate(64 << 30)  # 64 GiB of holes: reading it would take minutes and all memory
    err = _returns(lambda: read_bytes(huge, "endpoints"))
    assert isinstance(err, UnsafeFile) and f"{CAPS['endpoints']:,}" in err.why
    assert len(read_tail(huge, 4096)) == 4096  # a log's tail reads only its end


def test_every_kind_has_a_cap() -> None:
    assert set(CAPS) >= {"job", "plan", "endpoints", "status", "results", "relay", "index", "state", "local"}
    assert max(v for k, v in CAPS.items() if k != "results") <= 64 << 20 and CAPS["results"] <= 1 << 30


@pytest.mark.parametrize("name", ["job.json", "plan.json"])
def test_the_contract_names_a_refused_file(tmp_path: Path, name: str) -> None:
    os.mkfifo(tmp_path / name)
    read = read_job_meta if name == "job.json" else read_plan
    err = _returns(lambda: read(tmp_path))
    assert isinstance(err, JobDirError) and err.path == tmp_path / name and "named pipe" in err.problem


def test_events_of_a_device_are_none_and_appending_to_a_fifo_is_refused(tmp_path: Path) -> None:
    os.symlink("/dev/zero", tmp_path / "status.jsonl")
    assert _returns(lambda: read_events(tmp_path)) == []
    os.unlink(tmp_path / "status.jsonl")
    os.mkfifo(tmp_path / "status.jsonl")
    err = _returns(lambda: append_event(tmp_path, "submitted", "x"))
    assert isinstance(err, OSError)
