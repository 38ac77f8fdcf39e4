"""`srt-tui shell JOB [WORKER]`: a shell on the node a worker of the job runs on (the worker detail's `s`)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from datetime import datetime
from typing import Any

from srt_tui.cli.args import add_transport_argument, path_arg
from srt_tui.core.errors import Problem, SrtError


def _worker(job_dir: str, worker: str | None) -> tuple[int, str]:
    """The node index and log path of ``worker`` (default: the first worker) from the job's plan.json."""
    from pathlib import Path

    from srt_tui.core.jobdir.contract import JobDirError, read_plan

    try:
        processes = read_plan(Path(job_dir)).processes
    except JobDirError as exc:
        raise SrtError([Problem(field="JOB", message=str(exc), hint=exc.fix)]) from None
    names = [p.name for p in processes]
    if worker is None:
        return (processes[0].node_index, processes[0].log) if processes else (0, "")
    if worker not in names:
        hint = "name one of: " + ", ".join(n for n in names if n)
        raise SrtError([Problem(field="WORKER", message=f"the job has no worker `{worker}`", hint=hint)])
    found = processes[names.index(worker)]
    return found.node_index, found.log


def _cmd_shell(args: argparse.Namespace) -> int:
    from srt_tui.cli.jobs import _job_refs, _snapshots
    from srt_tui.monitor.cells import no_shell
    from srt_tui.slurm.reach import NoShell, job_hostnames, node_shell

    jobs = _job_refs([args.job], args.output)
    if len(jobs) != 1:
        raise SrtError([Problem(field="JOB", message=f"`{args.job}` is a group of {len(jobs)} jobs",
                                hint="name one member's job id")])  # fmt: skip
    ((job_id, path),) = jobs.items()
    node, log = _worker(str(path), args.worker)
    snaps, _down = _snapshots(jobs, args.transport)
    if why := no_shell(snaps[0], datetime.now().astimezone()):  # before srun's `job 7 has expired`, as `bench` does
        where = path / log if log else path / "logs"
        print(
            f"srt-tui: error: {why} (fix: read its log instead: {where}; the Monitor's `l` opens it)", file=sys.stderr
        )
        return 1
    try:
        shell = node_shell(job_id, str(path), node, job_hostnames(str(path)))
    except NoShell as exc:
        print(f"srt-tui: error: {exc}", file=sys.stderr)
        return 1
    if args.print:
        print(shell.display())
        return 0
    print(f"srt-tui: a shell on {shell.where}: {shell.display()} (exit leaves it)", file=sys.stderr)
    return subprocess.call(list(shell.argv), cwd=shell.cwd, env={**os.environ, **shell.env})


def add_shell_command(sub: Any) -> None:
    """Register `shell` on the CLI parser."""
    s = sub.add_parser(
        "shell",
        help="a shell on the node a job's worker runs on (srun --overlap; a local job: its directory)",
        description="Open an interactive shell on the node WORKER runs on (default: the first worker's) with "
        "`srun --jobid J --overlap --pty -w NODE bash`, a step that shares the job's resources; for a local "
        "job, a shell in its directory with its SRT_JOB_* variables. Exits with the shell's exit code; 1 when no "
        "shell can open (a Slurm job that has ended holds no node: read its logs instead).",
    )
    s.add_argument("job", metavar="JOB", help="job id or job directory")
    s.add_argument("worker", nargs="?", metavar="WORKER", help="worker name as the job view shows it (prefill_0 …)")
    s.add_argument("--print", action="store_true", help="print the command instead of running it")
    s.add_argument("-o", "--output", type=path_arg, help="output directory holding job directories")
    add_transport_argument(s)
    s.set_defaults(func=_cmd_shell)
