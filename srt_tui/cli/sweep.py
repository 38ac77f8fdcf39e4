"""Files that hold several jobs (srtctl's `sweep:` blocks, override files) on the command line:
`dry-run` shows the expansion, `apply` submits every member as one group."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from srt_tui.core.errors import Problem, SrtError
from srt_tui.core.spec.sweep import differing_values
from srt_tui.slurm.sweep_submit import Member, check_members

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared
    from srt_tui.slurm.submit import Submission
    from srt_tui.slurm.sweep_submit import SweepOutcome


def file_members(spec: str) -> list[tuple[str, Any]] | None:
    """The jobs of `-f spec` when it names a file of several jobs without picking one, else None."""
    from srt_tui.core.spec.recipe import file_jobs

    path = Path(spec)
    if not path.is_file():
        return None
    jobs = file_jobs(path)
    return jobs if len(jobs) > 1 else None


def expansion_rows(jobs: list[tuple[str, Any]], members: list[Member]) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The expansion table: selector, job name, the values that differ between members, and the check."""
    keys, values = differing_values(jobs)
    header = ("JOB", "NAME", *keys, "CHECK")
    rows = []
    for m, vals in zip(members, values):
        check = f"ok: {m.prep.plan.topology} on {m.prep.plan.nodes} node(s)" if m.prep else "INVALID (below)"
        rows.append((m.selector, m.name, *vals, check))
    return header, rows


def dry_run_members(args: argparse.Namespace, jobs: list[tuple[str, Any]]) -> int:
    """`dry-run -f sweep.yaml`: the expansion table (or JSON); exit 2 when a member is invalid."""
    if args.output:
        raise SrtError(
            [
                Problem(
                    field="-o/--output",
                    message=f"{args.file} holds {len(jobs)} jobs; -o writes the files of one",
                    hint=f"pick one: -f {args.file}:{jobs[0][0]} -o DIR",
                )
            ]
        )
    members = check_members(args.file, jobs, args.profile, args.topology)
    if args.json:
        keys, values = differing_values(jobs)
        doc = [
            {
                "selector": m.selector,
                "name": m.name,
                "values": dict(zip(keys, vals)),
                "valid": m.prep is not None,
                "problems": list(m.problems),
                "plan": json.loads(m.prep.plan.to_json_text()) if m.prep else None,
            }
            for m, vals in zip(members, values)
        ]
        print(json.dumps(doc, indent=2))
    else:
        from srt_tui.core.text.views import fixed_table

        header, rows = expansion_rows(jobs, members)
        print(f"{args.file}: {len(jobs)} jobs")
        print(fixed_table(header, rows))
        for m in members:
            for line in m.problems:
                print(f"{m.selector}: {line}")
        print("\n" + next_commands(args.file, members))
    return 2 if any(m.prep is None for m in members) else 0


def next_commands(spec: str, members: list[Member]) -> str:
    """What to run after `dry-run -f sweep.yaml`: one valid job in full, and `apply` for all of them only when it
    would submit them (every member valid; with one invalid it submits nothing); with none valid, the fix first."""
    valid = [m for m in members if m.prep is not None]
    if not valid:
        return f"no job is valid: fix the problems above, then: srt-tui dry-run -f {spec}"
    one = f"one job in full: srt-tui dry-run -f {spec}:{valid[0].selector}"
    if len(valid) < len(members):
        return f"{one}   |   all, once every job is valid: srt-tui apply -f {spec}"
    return f"{one}   |   all: srt-tui apply -f {spec}"


def _error_json(refusal: SrtError) -> None:
    """`apply --json`'s answer when nothing of the group was submitted."""
    print(json.dumps({"status": "error", "group": None, "jobs": [], "error": str(refusal)}), flush=True)


def _confirmed_group(members: list[tuple[Member, Prepared]], spec: str) -> bool:
    """One question for the whole group (on stderr); without a terminal only -y submits."""
    if not sys.stdin.isatty():
        print(
            "srt-tui: not submitted: no terminal to confirm on (fix: add -y to submit without asking)", file=sys.stderr
        )
        return False
    for m, prep in members:
        plan = prep.plan
        sys.stderr.write(f"  {m.selector}: {plan.name}: {plan.topology} on {plan.nodes} node(s)\n")
    sys.stderr.write(f"Submit these {len(members)} jobs of {spec} as one group? [y/N] ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() in ("y", "yes"):
        return True
    print("not submitted", file=sys.stderr)
    return False


def apply_members(args: argparse.Namespace, jobs: list[tuple[str, Any]], tags: list[str] | None) -> int:
    """`apply -f sweep.yaml`: every member checked first, then submitted in order as one group (job.json's
    `group`; `sweep_submit` does it); a refusal midway stops there and says which jobs were submitted and which
    were not."""
    from srt_tui.cli.submission import submission_json
    from srt_tui.slurm.sweep_submit import check_sweep, missing_paths, new_group_id, submit_sweep

    check = check_sweep(args.file, args.profile, args.topology, jobs)
    refusal = check.refusal()
    if refusal is not None:
        if args.json:
            _error_json(refusal)
        raise refusal
    ready = check.ready
    # every member's model and container paths before any is submitted (or asked for)
    missing = None if args.no_preflight else missing_paths(ready)
    if missing is not None:
        if args.json:
            _error_json(missing)
        raise missing
    if not args.yes and not args.json and not _confirmed_group(ready, args.file):
        return 1

    def submitted(m: Member, prep: Prepared, sub: Submission) -> None:
        for note in sub.notes:
            print(f"preflight: {m.selector}: {note}", file=sys.stderr)
        if sub.submit_note:
            print(f"srt-tui: note: {m.selector}: {sub.submit_note}", file=sys.stderr)
        if not args.json:
            print(f"submitted {m.selector} {m.name}: job {sub.job_id} ({sub.launcher}) -> {sub.job_dir}")

    outcome = submit_sweep(
        ready,
        new_group_id(args.file),
        check.values,
        launcher=args.launcher,
        output=Path(args.output) if args.output else None,
        transport=args.transport,
        preflight=not args.no_preflight,
        tags=tags,
        on_submitted=submitted,
    )
    if outcome.failed:
        _report_partial(args, outcome, tags)
        raise outcome.failed[0][1]
    group, done = outcome.group, outcome.submitted
    if args.json:
        subs = [submission_json(sub, prep, tags) | {"selector": m.selector} for m, prep, sub in done]
        print(json.dumps({"status": "submitted", "group": group, "jobs": subs}))
    else:
        print(f"group {group}: {len(done)} jobs submitted")
        ids = " ".join(sub.job_id for *_, sub in done)
        print(f"  compare them: srt-tui results {group}   |   follow: srt-tui status {ids}")
    return 0


def _report_partial(args: argparse.Namespace, outcome: SweepOutcome, tags: list[str] | None) -> None:
    """Which members were submitted before the refusal and which not (the refusal itself follows)."""
    from srt_tui.cli.submission import submission_json

    group, done = outcome.group, outcome.submitted
    left = [m for m, _ in outcome.failed] + outcome.not_submitted
    exc = outcome.failed[0][1]
    if args.json:
        print(
            json.dumps(
                {
                    "status": "partial" if done else "error",
                    "group": group,
                    "jobs": [submission_json(sub, prep, tags) | {"selector": m.selector} for m, prep, sub in done],
                    "not_submitted": [{"selector": m.selector, "job_name": m.name} for m in left],
                    "error": str(exc),
                }
            ),
            flush=True,
        )
        return
    print(
        f"srt-tui: group {group}: {len(done)} of {len(done) + len(left)} jobs submitted before the refusal:",
        file=sys.stderr,
    )
    for m, _, sub in done:
        print(f"  submitted      {m.selector} {m.name}: job {sub.job_id} -> {sub.job_dir}", file=sys.stderr)
    for m in left:
        print(f"  not submitted  {m.selector} {m.name}", file=sys.stderr)
