"""A second real user on this machine (issue 18: "tried as a hostile second user"): created when missing,
its commands run with `runuser`. Needs root (CI runs as root); elsewhere the tests skip, saying why."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require

OTHER = "srtother"


@dataclass(frozen=True)
class OtherUser:
    """The second user: its name and uid, and a way to run a command as it."""

    name: str
    uid: int

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` as this user (a login-less `runuser -u NAME --`)."""
        proc = subprocess.run(["runuser", "-u", self.name, "--", *argv], capture_output=True, text=True, timeout=60)
        if check and proc.returncode != 0:
            raise AssertionError(f"as {self.name}: {argv} exited {proc.returncode}: {proc.stderr}")
        return proc

    def popen(self, *argv: str) -> subprocess.Popen[bytes]:
        """Start ``argv`` as this user in a session of its own."""
        return subprocess.Popen(["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", *argv],
                                start_new_session=True)  # fmt: skip


@pytest.fixture(scope="session")
def other_user() -> OtherUser:
    """The second user (`useradd -m srtother` when missing)."""
    require(os.geteuid() == 0, "a second real user needs root (useradd, runuser); CI runs as root")
    require(shutil.which("runuser") is not None and shutil.which("setpriv") is not None, "runuser and setpriv")
    try:
        entry = pwd.getpwnam(OTHER)
    except KeyError:
        subprocess.run(["useradd", "-m", OTHER], check=True, capture_output=True)
        entry = pwd.getpwnam(OTHER)
    return OtherUser(entry.pw_name, entry.pw_uid)


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory everyone may write, with the sticky bit (as /tmp or a well-run project directory)."""
    path = Path(tempfile.mkdtemp(prefix="srt-shared-", dir="/tmp"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)
