"""LogFollower (`wait --log-file`): the whole log from its start, a file that appears late, a UTF-8
character split across polls, truncation."""

from __future__ import annotations

import io
from pathlib import Path

from srt_tui.monitor.files.logfollow import LogFollower


def test_follows_a_log_that_appears_late_grows_and_splits_a_character(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "sweep_7.log"
    out = io.StringIO()
    follower = LogFollower(log, out)
    assert follower.poll() == 0 and not follower.seen  # not there yet: nothing, no error
    log.parent.mkdir()
    snowman = "☃".encode()
    log.write_bytes(b"line 1\n" + snowman[:1])
    follower.poll()
    assert out.getvalue() == "line 1\n"  # half a character waits for the rest
    with open(log, "ab") as fh:
        fh.write(snowman[1:] + b" done\n")
    follower.poll(final=True)
    assert follower.seen and out.getvalue() == "line 1\n☃ done\n"


def test_a_truncated_log_is_followed_again_from_its_start(tmp_path: Path) -> None:
    log = tmp_path / "slurm.log"
    log.write_text("first run, a long line\n")
    out = io.StringIO()
    follower = LogFollower(log, out)
    follower.poll()
    log.write_text("again\n")
    follower.poll()
    assert out.getvalue() == "first run, a long line\nagain\n"


def test_a_symlink_to_a_log_slurm_has_not_opened_yet_is_waited_for(tmp_path: Path) -> None:
    link = tmp_path / "sweep_3.log"
    link.symlink_to("slurm.log")
    out = io.StringIO()
    follower = LogFollower(link, out)
    assert follower.poll() == 0 and not follower.seen
    (tmp_path / "slurm.log").write_text("started\n")
    assert follower.poll() == len("started\n") and out.getvalue() == "started\n"
