"""The local launcher: runs a job's launch script on this machine without Slurm.

The script runs in its own session with `SRT_LAUNCHER=local`; each step becomes a local process
group bound to a per-node loopback address (127.0.0.11, .12, …), so a multi-node plan still gets
distinct addresses and ports. The job's state comes from its pid and its `status.jsonl`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

from srt_tui.core.jobdir.bounded import read_bytes
from srt_tui.core.jobdir.events import read_events
from srt_tui.slurm.client import JobState

LOCAL_PREFIX = "local-"
_FINAL = {"completed": "COMPLETED", "failed": "FAILED", "cancelled": "CANCELLED"}


def is_local_job(job_id: str) -> bool:
    """Local job ids look like `local-7`."""
    return job_id.startswith(LOCAL_PREFIX)


def next_local_id(output_dir: Path) -> str:
    """The next free `local-N` id in an output directory."""
    taken = [
        int(p.name[len(LOCAL_PREFIX) :])
        for p in output_dir.glob(f"{LOCAL_PREFIX}*")
        if p.name[len(LOCAL_PREFIX) :].isdigit()
    ]
    return f"{LOCAL_PREFIX}{max(taken, default=0) + 1}"


def local_net(job_dir: Path) -> str:
    """A loopback /24 of its own per job (`127.X.Y`), so concurrent local jobs never share ports."""
    digest = hashlib.sha256(str(job_dir.resolve()).encode()).digest()
    return f"127.{1 + digest[0] % 254}.{digest[1]}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of this process still answers kill(0)
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return True


def _last_stage(job_dir: Path) -> str | None:
    events = read_events(job_dir)
    return events[-1].stage if events else None


class LocalLauncher:
    """Runs launch scripts as local process groups; mirrors the SlurmClient calls it needs."""

    name = "local"
    supports_json = False
    in_process = True
    last_error: str | None = None

    def start(self, job_id: str, job_dir: Path) -> int:
        """Start `job_dir/sbatch.sh` detached; returns the script's pid (also its process group)."""
        env = dict(
            os.environ,
            SRT_LAUNCHER="local",
            SRT_JOB_ID=job_id,
            SRT_JOB_DIR=str(job_dir),
            SRT_LOCAL_NET=local_net(job_dir),
        )
        log = open(job_dir / "logs" / "launch.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            proc = subprocess.Popen(
                ["bash", str(job_dir / "sbatch.sh")],
                cwd=job_dir,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            log.close()
        (job_dir / "local.json").write_text(json.dumps({"pid": proc.pid, "started": time.time()}) + "\n")
        return proc.pid

    def _pid(self, job_dir: Path) -> int | None:
        try:
            return int(json.loads(read_bytes(job_dir / "local.json", "local"))["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def state(self, job_id: str, job_dir: Path) -> JobState:
        """RUNNING while the script lives; afterwards the final stage it wrote (or FAILED)."""
        pid = self._pid(job_dir)
        if pid is None:
            return JobState.unknown(job_id)
        if _alive(pid):
            return JobState(
                job_id=job_id,
                name=job_dir.name,
                state="RUNNING",
                nodes=("localhost",),
                node_count=1,
                work_dir=str(job_dir),
            )
        stage = _last_stage(job_dir)
        return JobState(
            job_id=job_id,
            name=job_dir.name,
            state=_FINAL.get(stage or "", "FAILED"),
            reason="" if stage in _FINAL else "launch script ended without a final stage",
            work_dir=str(job_dir),
        )

    def cancel(self, job_id: str, job_dir: Path, timeout: float = 15.0) -> None:
        """SIGTERM the script's process group (its trap stops every step), SIGKILL what remains."""
        pid = self._pid(job_dir)
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.1)
        groups = [pid]
        with contextlib.suppress(OSError):
            groups += [int(x) for x in read_bytes(job_dir / ".local-pids", "local").split() if x.isdigit()]
        for group in groups:  # steps of a script that died without its trap
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
