"""How the operator reaches a running job: a shell on one of its nodes, and the SSH port-forward that
brings its public URL to a laptop.

The commands are built here (the node hostnames are read from the job's `endpoints.json`, off the UI
thread); the TUI runs the shell with the app suspended, and `srt-tui shell` runs it in the foreground.
"""

from __future__ import annotations

import getpass
import os
import shlex
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from srt_tui.core.jobdir.contract import JobDirError, read_endpoints
from srt_tui.slurm.local import is_local_job

#: the login host a laptop reaches with ssh (`host` or `user@host`), when this machine's own hostname is not
#: it (an internal name behind a gateway)
LOGIN_HOST_ENV = "SRT_TUI_LOGIN_HOST"


@dataclass(frozen=True)
class ShellCommand:
    """An interactive shell: what to run, where, with which variables added to the environment."""

    argv: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    #: where the shell opens, for the operator (`gpu-12`, `this machine, in the job directory`)
    where: str = ""
    #: Slurm's name of the node (empty for a local job): the job's `node0` is not Slurm's `node0`
    host: str = ""

    def display(self) -> str:
        """The command as the operator would type it (every value quoted)."""
        prefix = f"cd {shlex.quote(self.cwd)} && " if self.cwd else ""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items()))
        return prefix + (f"{env} " if env else "") + shlex.join(self.argv)


class NoShell(Exception):
    """No shell can be opened for that job or node: why, and what to do."""


def node_shell(job_id: str, job_dir: str, node_index: int, hostnames: Sequence[str]) -> ShellCommand:
    """A shell on the job's node ``node_index``: `srun --jobid J --overlap --pty -w NODE bash` on Slurm (a
    step that shares the job's resources), or for a local job a shell in its directory with the variables
    the local launcher gave the job."""
    if is_local_job(job_id):
        env = {"SRT_LAUNCHER": "local", "SRT_JOB_ID": job_id, "SRT_JOB_DIR": job_dir}
        return ShellCommand(("bash", "-i"), cwd=job_dir, env=env, where="this machine, in the job directory")
    if not 0 <= node_index < len(hostnames) or not hostnames[node_index]:
        known = f"it has {len(hostnames)} known node(s)" if hostnames else "its endpoints.json names no nodes yet"
        raise NoShell(f"job {job_id}: node {node_index} is not known ({known}); wait until the job runs")
    node = hostnames[node_index]
    argv = ("srun", "--jobid", job_id, "--overlap", "--pty", "-N", "1", "-n", "1", "-w", node, "bash", "-i")
    return ShellCommand(argv, where=node, host=node)


def login_address() -> str:
    """`user@host` a laptop uses to reach this machine (`SRT_TUI_LOGIN_HOST` overrides the host, or both)."""
    host = os.environ.get(LOGIN_HOST_ENV) or socket.gethostname()
    if "@" in host:
        return host
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container): the laptop's user is the best guess
        return host
    return f"{user}@{host}"


def port_forward(url: str, login: str) -> str | None:
    """The SSH line that serves ``url`` on the laptop's localhost at the same port, or None for a URL
    without a host."""
    split = urlsplit(url)
    if not split.hostname:
        return None
    port = split.port or (443 if split.scheme == "https" else 80)
    host = f"[{split.hostname}]" if ":" in split.hostname else split.hostname
    return f"ssh -N -L {port}:{host}:{port} {shlex.quote(login)}"


def job_hostnames(job_dir: str) -> list[str]:
    """The job's node hostnames in node-index order, from its `endpoints.json` (empty until the job wrote
    it). A file read: call it off the UI thread."""
    try:
        return list(read_endpoints(Path(job_dir)).hostnames())
    except JobDirError:
        return []
