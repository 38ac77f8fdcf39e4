"""`srt-tui jobs`: this user's Slurm jobs as squeue shows them, with the output directory of those srt-tui
or srtctl launched; `--all` adds every other job of the user; `--hide`/`--unhide` edit the hidden list."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from srt_tui.cli.args import add_transport_argument

if TYPE_CHECKING:
    from srt_tui.core.errors import SrtError
    from srt_tui.monitor.alljobs.query import MyJobs


def _listing(args: argparse.Namespace) -> MyJobs:
    """One user-scoped query (SlurmUnavailable, exit 3, when no controller answers)."""
    from srt_tui.monitor.alljobs.query import my_jobs
    from srt_tui.slurm.errors import SlurmUnavailable
    from srt_tui.slurm.select import get_client
    from srt_tui.state.hidden import hidden_jobs
    from srt_tui.state.jobindex import known_jobs

    listing = my_jobs(get_client(args.transport), args.user, hidden_jobs(), known_jobs())
    if listing.error:
        raise SlurmUnavailable(listing.error)
    return listing


def _unknown_id(ref: str, seen: Iterable[str]) -> SrtError:
    """The error of an id `--hide`/`--unhide` has never seen (no job srt-tui indexed, Slurm lists or is hidden):
    the closest id it has seen as the fix, as `status` says of an unknown JOB (exit 2)."""
    from srt_tui.core.errors import Problem, SrtError, did_you_mean

    hint = did_you_mean(ref, seen) or "`srt-tui jobs --all` and `srt-tui status` list the ids it knows"
    return SrtError([Problem(field="JOB", message=f"no job known as `{ref}`", hint=hint)])


def _slurm_ids(args: argparse.Namespace, ids: Iterable[str]) -> dict[str, str]:
    """Slurm's state of each of these non-local ids it lists for the user (one query, none when no id is
    Slurm's; SlurmUnavailable when it cannot be reached)."""
    from srt_tui.slurm.local import is_local_job

    wanted = {i for i in ids if not is_local_job(i)}
    if not wanted:
        return {}
    return {j.job_id: j.job.state for j in _listing(args).jobs if j.job_id in wanted}


def _hide(args: argparse.Namespace) -> int:
    """Hide ended jobs; a job still queued or running is refused (cancel it first); one Slurm no longer
    knows has ended long ago and is hidden when srt-tui knows it; an id nothing knows is refused (exit 2)."""
    from srt_tui.cli.printable import say_unknown
    from srt_tui.slurm.client import TERMINAL_STATES, UNKNOWN_STATE
    from srt_tui.slurm.local import LocalLauncher, is_local_job
    from srt_tui.state.hidden import hidden_jobs, hide
    from srt_tui.state.jobindex import find_job_dir, known_jobs

    states: dict[str, str] = {}
    for job_id in args.hide:  # local jobs: the launcher's record, no Slurm needed
        job_dir = find_job_dir(job_id) if is_local_job(job_id) else None
        if job_dir is not None:
            states[job_id] = LocalLauncher().state(job_id, job_dir).state
    states |= _slurm_ids(args, args.hide)
    seen = set(known_jobs()) | hidden_jobs() | set(states)
    unknown = [i for i in dict.fromkeys(args.hide) if i not in seen]
    wanted = [i for i in dict.fromkeys(args.hide) if i in seen]
    active = [i for i, state in states.items() if state not in TERMINAL_STATES and state != UNKNOWN_STATE]
    if active:
        states_text = ", ".join(f"{i} ({states[i]})" for i in active)
        print(
            f"srt-tui: not hidden: still queued or running: {states_text} (only ended jobs leave the list; "
            "cancel it first with `srt-tui cancel ID`)",
            file=sys.stderr,
        )
        return say_unknown([_unknown_id(i, seen) for i in unknown]) or 1
    if wanted:
        hide(wanted)
        print(f"hidden: {' '.join(wanted)} (directories kept; `srt-tui jobs --unhide ID` shows them again)")
    return say_unknown([_unknown_id(i, seen) for i in unknown])


def _unhide(args: argparse.Namespace) -> int:
    """Show hidden jobs again; each id that was not hidden is said (exit 1), and one nothing knows is refused as
    an unknown JOB (exit 2). Slurm is asked only about an id neither hidden nor indexed, and when it cannot be
    reached such an id counts as not hidden rather than unknown."""
    from srt_tui.cli.printable import say_unknown
    from srt_tui.slurm.errors import SlurmError
    from srt_tui.state.hidden import hidden_jobs, unhide
    from srt_tui.state.jobindex import known_jobs

    ids = list(dict.fromkeys(args.unhide))
    found = unhide(ids)
    seen = set(known_jobs()) | hidden_jobs() | set(found)
    rest = [i for i in ids if i not in seen]
    try:
        listed = set(_slurm_ids(args, rest))
    except SlurmError:
        listed = set(rest)  # cannot tell a Slurm job from a typo: not called unknown
    seen |= listed
    missing = [i for i in ids if i not in found and i in seen]
    unknown = [i for i in ids if i not in seen]
    if found:
        print(f"shown again: {' '.join(found)}")
    if missing:
        print(f"srt-tui: not hidden: {' '.join(missing)} (nothing to show again)", file=sys.stderr)
    return say_unknown([_unknown_id(i, seen) for i in unknown]) or (1 if missing else 0)


def _cmd_jobs(args: argparse.Namespace) -> int:
    from srt_tui.core.text.views import fixed_table
    from srt_tui.monitor.alljobs.cells import HEADERS, row

    if args.unhide:
        return _unhide(args)
    if args.hide:
        return _hide(args)
    from srt_tui.slurm.errors import SlurmError

    try:
        listing = _listing(args)
    except SlurmError:
        if hint := _local_hint(args):  # no Slurm here: the demo's jobs are still somewhere to look
            print(hint, file=sys.stderr)
        raise
    jobs = [j for j in listing.shown(args.hidden) if args.all or j.job_dir is not None]
    if args.json:
        out = [asdict(j.job) | {"from": j.kind, "job_dir": str(j.job_dir or ""), "hidden": j.hidden} for j in jobs]
        print(json.dumps(out, indent=2))
        return 0
    if not jobs:
        scope = "Slurm jobs" if args.all else "Slurm jobs launched by srt-tui or srtctl (--all: every job)"
        print(f"no {scope} of {listing.user}")
        if hint := _local_hint(args):
            print(hint)
        return 0
    now = datetime.now()
    header = (*HEADERS.values(), "OUTPUT DIR")
    print(fixed_table(header, [(*row(j, now), str(j.job_dir or "-")) for j in jobs]))
    hidden = sum(j.hidden for j in listing.jobs) if not args.hidden else 0
    if hidden:
        print(f"({hidden} hidden: --hidden lists them)", file=sys.stderr)
    if hint := _local_hint(args):
        print(hint, file=sys.stderr)
    return 0


def _local_hint(args: argparse.Namespace) -> str:
    """The local launcher's jobs run on this machine, not in Slurm, so `jobs` never lists them: the operator
    who ran the demo (`local-1`, `local-2`) is told where they are (empty when there are none)."""
    if args.user or args.json:
        return ""
    from srt_tui.slurm.local import LOCAL_PREFIX, is_local_job
    from srt_tui.state.jobindex import known_jobs

    local = sorted((j for j in known_jobs() if is_local_job(j)), key=lambda j: int(j.removeprefix(LOCAL_PREFIX)))
    if not local:
        return ""
    return f"local jobs (this machine, not Slurm): {' '.join(local)}: `srt-tui status` lists them"


def add_alljobs_command(sub: Any) -> None:
    """Register `jobs` on the CLI parser."""
    j = sub.add_parser(
        "jobs",
        help="this user's Slurm jobs, squeue-style, with the output directory of srt-tui's and srtctl's",
        description="This user's Slurm jobs (queued, running, and ended ones slurmctld or accounting still "
        "holds). Without --all only those srt-tui or srtctl launched (they have an output directory).",
    )
    j.add_argument("--all", action="store_true", help="every Slurm job of the user, however it was submitted")
    j.add_argument("--hidden", action="store_true", help="list hidden jobs too (marked `(hidden)`)")
    j.add_argument("--hide", nargs="+", metavar="JOB", help="remove ended jobs from the lists (directories kept)")
    j.add_argument("--unhide", nargs="+", metavar="JOB", help="list hidden jobs again")
    j.add_argument("-u", "--user", help="whose jobs (default: you)")
    j.add_argument("--json", action="store_true", help="one object per job: Slurm's fields, from, job_dir, hidden")
    add_transport_argument(j)
    j.set_defaults(func=_cmd_jobs)
