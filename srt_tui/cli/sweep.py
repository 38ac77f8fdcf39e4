"""Files that hold several jobs (srtctl's `sweep:` blocks, override files) on the command line:
`dry-run` shows the expansion, `apply` submits every member as one group."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from srt_tui.core.errors import Problem, SrtError
from srt_tui.core.spec.sweep import differing_values

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared


@dataclass(frozen=True)
class Member:
    """One job of the file: its selector (`sweep[i]`), name, and its plan or why it is invalid."""

    selector: str
    name: str
    prep: Prepared | None
    problems: tuple[str, ...]


def file_members(spec: str) -> list[tuple[str, Any]] | None:
    """The jobs of `-f spec` when it names a file of several jobs without picking one, else None."""
    from srt_tui.core.spec.recipe import file_jobs

    path = Path(spec)
    if not path.is_file():
        return None
    jobs = file_jobs(path)
    return jobs if len(jobs) > 1 else None


def check_members(spec: str, jobs: list[tuple[str, Any]], profile: str | None, topology: str | None) -> list[Member]:
    """Every member prepared as `dry-run -f spec:<selector>` would; the invalid ones keep their problems."""
    from srt_tui.core.api import prepare

    out: list[Member] = []
    for selector, data in jobs:
        name = str(data.get("name", selector)) if isinstance(data, dict) else selector
        try:
            prep = prepare(f"{spec}:{selector}", profile, topology)
        except SrtError as exc:
            out.append(Member(selector, name, None, tuple(p.render() for p in exc.problems) or ("invalid",)))
            continue
        out.append(Member(selector, prep.plan.name, prep, ()))
    return _same_scripts_refused(out)


def _same_scripts_refused(members: list[Member]) -> list[Member]:
    """A member whose launch script is an earlier member's but for the job's name is refused: it would run the same
    job again (the sweep fills its values only where nothing reads them, e.g. `description:`)."""
    seen: dict[str, Member] = {}
    out: list[Member] = []
    for m in members:
        if m.prep is None:
            out.append(m)
            continue
        script = m.prep.script.replace(m.prep.plan.name, "<name>")
        first = seen.setdefault(script, m)
        if first is m:
            out.append(m)
            continue
        why = (
            f"sweep: runs the same launch script as {first.selector} ({first.name}), only the name differs "
            "(fix: put the sweep's `{param}` in a field that changes the job: an engine arg, a benchmark key, …)"
        )
        out.append(Member(m.selector, m.name, None, (why,)))
    return out


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
        print(f"\none job in full: srt-tui dry-run -f {args.file}:{jobs[0][0]}   |   all: srt-tui apply -f {args.file}")
    return 2 if any(m.prep is None for m in members) else 0


def _refused(members: list[Member], spec: str) -> SrtError:
    """Every invalid member's problems, each prefixed with its selector: nothing is submitted."""
    problems = [
        Problem(field="", message=f"{m.selector} ({m.name}): {line}")
        for m in members
        if m.prep is None
        for line in m.problems
    ]
    problems.append(Problem(field="", message=f"nothing submitted: every job of {spec} must be valid first"))
    return SrtError(problems)


def _refuse_missing_paths(args: argparse.Namespace, ready: list[tuple[Member, Prepared]]) -> None:
    """Raise PreflightError naming, per member, the model or container path this machine does not find (as
    `apply` refuses one job): nothing of the group is submitted."""
    from srt_tui.slurm.preflight import PreflightError, path_checks

    problems = [
        Problem(field=f"{m.selector}: preflight {c.name}", message=c.message, hint=c.fix)
        for m, prep in ready
        for c in path_checks(prep)
        if c.blocks
    ]
    if not problems:
        return
    refusal = PreflightError(problems)
    if args.json:
        print(json.dumps({"status": "error", "group": None, "jobs": [], "error": str(refusal)}), flush=True)
    raise refusal


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


def new_group_id(spec: str) -> str:
    """A group id to type: the file's stem and a short random suffix (two applies of a file never share one)."""
    import secrets

    return f"{Path(spec).stem}-{secrets.token_hex(3)}"


def apply_members(args: argparse.Namespace, jobs: list[tuple[str, Any]], tags: list[str] | None) -> int:
    """`apply -f sweep.yaml`: every member checked first, then submitted in order as one group (job.json's
    `group`); a refusal midway stops there and says which jobs were submitted and which were not."""
    from srt_tui.cli.submission import submission_json
    from srt_tui.core.spec.recipe import file_sweep_values
    from srt_tui.slurm.submit import submit_prepared
    from srt_tui.state.jobindex import record_group

    swept = file_sweep_values(Path(args.file))
    members = check_members(args.file, jobs, args.profile, args.topology)
    ready = [(m, m.prep) for m in members if m.prep is not None]
    if len(ready) < len(members):
        refusal = _refused(members, args.file)
        if args.json:
            print(json.dumps({"status": "error", "group": None, "jobs": [], "error": str(refusal)}), flush=True)
        raise refusal
    if not args.no_preflight:  # every member's model and container paths before any is submitted (or asked for)
        _refuse_missing_paths(args, ready)
    if not args.yes and not args.json and not _confirmed_group(ready, args.file):
        return 1
    group = new_group_id(args.file)
    output = Path(args.output) if args.output else None
    done: list[tuple[Member, Prepared, Any]] = []
    client = None  # the first Slurm submission's client: the other members do not ping Slurm again
    for m, prep in ready:
        try:
            sub = submit_prepared(prep, args.launcher, output, args.transport, not args.no_preflight, client)
        except (Exception, KeyboardInterrupt) as exc:
            _report_partial(args, group, done, members[len(done) :], exc, tags)
            raise
        record_group(sub.job_dir, group, m.selector, tags, swept.get(m.selector))
        for note in sub.notes:
            print(f"preflight: {m.selector}: {note}", file=sys.stderr)
        if sub.submit_note:
            print(f"srt-tui: note: {m.selector}: {sub.submit_note}", file=sys.stderr)
        done.append((m, prep, sub))
        client = sub.client or client
        if not args.json:
            print(f"submitted {m.selector} {m.name}: job {sub.job_id} ({sub.launcher}) -> {sub.job_dir}")
    if args.json:
        subs = [submission_json(sub, prep, tags) | {"selector": m.selector} for m, prep, sub in done]
        print(json.dumps({"status": "submitted", "group": group, "jobs": subs}))
    else:
        print(f"group {group}: {len(done)} jobs submitted")
        ids = " ".join(sub.job_id for *_, sub in done)
        print(f"  compare them: srt-tui results {group}   |   follow: srt-tui status {ids}")
    return 0


def _report_partial(
    args: argparse.Namespace,
    group: str,
    done: list[tuple[Member, Prepared, Any]],
    left: list[Member],
    exc: BaseException,
    tags: list[str] | None,
) -> None:
    """Which members were submitted before the refusal and which not (the refusal itself follows)."""
    from srt_tui.cli.submission import submission_json

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
