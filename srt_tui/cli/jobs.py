"""`apply`, `status`, `wait`, `cancel`: the job commands of the CLI, on the same core as the TUI."""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from srt_tui.cli.args import add_transport_argument, path_arg, seconds
from srt_tui.cli.printable import printable, say_unknown, warn_plan
from srt_tui.core.errors import Problem, SrtError

if TYPE_CHECKING:
    from srt_tui.monitor.model import JobSnapshot


def _job_refs(refs: list[str], output: str | None) -> dict[str, Path]:
    """Job id → directory of the named jobs (all indexed ones without names); a named directory whose
    job.json cannot be read is refused, since its job id (what `cancel` acts on) is unknown."""
    from srt_tui.core.jobdir.contract import JOB_FILE, JobDirError, read_job_meta
    from srt_tui.state.jobindex import find_job_dir, group_members, known_jobs

    if not refs:  # every known job the operator has not removed from the list (`d`, `jobs --hide`)
        from srt_tui.state.hidden import hidden_jobs

        hidden = hidden_jobs()
        return {j: d for j, d in known_jobs().items() if j not in hidden}
    out: dict[str, Path] = {}
    for ref in refs:
        path = find_job_dir(ref, Path(output) if output else None)
        if path is None and Path(ref).is_dir() and os.path.lexists(Path(ref) / JOB_FILE):
            path = Path(ref)  # a job.json that is no regular file: read_job_meta below says what it is
        members = group_members(ref) if path is None else {}
        if members:  # a sweep's group id (`apply -f sweep.yaml`): every member
            out.update(members)
            continue
        if path is None:
            raise SrtError(
                [
                    Problem(
                        field="JOB",
                        message=f"no job directory found for `{ref}`",
                        hint="pass the job id, its directory, a sweep's group id, or -o OUTPUT_DIR where it lives",
                    )
                ]
            )
        try:
            job_id = read_job_meta(path).job_id or path.name
        except JobDirError as exc:
            message = f"{exc.path} is unreadable: {exc.problem}"
            raise SrtError([Problem(field="JOB", message=message, hint=exc.fix)]) from None
        out[job_id] = path
    return out


def known_refs(refs: list[str], output: str | None) -> tuple[dict[str, Path], list[SrtError]]:
    """`_job_refs` for a command that takes several JOBs: the jobs of the refs it knows, and the error of each ref it
    does not, so the command acts on the known ones and says each unknown one (`status 26 22` printed nothing of 26
    when 22 was unknown), as squeue and kubectl do."""
    if not refs:
        return _job_refs(refs, output), []
    found: dict[str, Path] = {}
    unknown: list[SrtError] = []
    for ref in refs:
        try:
            found.update(_job_refs([ref], output))
        except SrtError as exc:
            unknown.append(exc)
    return found, unknown


def _client(transport: str) -> tuple[Any, str | None]:
    """A Slurm client and, when no controller answers now, why (`scontrol ping`'s own words).

    The client is returned even then: its queries fail (shown as a stale Slurm source, retried with
    back-off) until the controller is back, so a long `wait` sees Slurm again after an outage.
    """
    from srt_tui.slurm.errors import SlurmUnavailable
    from srt_tui.slurm.select import get_client

    try:
        return get_client(transport), None
    except SlurmUnavailable as exc:
        try:
            return get_client(transport, require_reachable=False), str(exc)
        except SlurmUnavailable:
            return None, str(exc)


def _monitor_for(
    jobs: dict[str, Path], transport: str, *, keep_trying: bool, history: Any = None
) -> tuple[Any, str | None]:
    """A Monitor for these jobs and the Slurm problem found while setting it up (None: Slurm answers).

    ``keep_trying`` (`wait`): query Slurm even when it is down now, to see it again when it returns;
    otherwise (`status`, one refresh) a controller that did not answer `scontrol ping` is not queried.
    ``history``: the counter samples to measure rates over (`status --watch` keeps one across refreshes).
    """
    from srt_tui.monitor.snapshot.collect import Monitor
    from srt_tui.slurm.local import is_local_job

    client, down = _client(transport) if any(not is_local_job(j) for j in jobs) else (None, None)
    if down and not keep_trying:
        client = None
    return Monitor(client, slurm_down=down, history=history), down


def status_history() -> Any:
    """The counter samples a `status` measures its rates and serving figures over: the previous runs' newest
    (`rate_cache`), so a one-shot run's span is since then; `--watch` keeps adding its refreshes' to the same one,
    a window as the TUI's."""
    from srt_tui.monitor.statuses.history import CounterHistory
    from srt_tui.state import rate_cache

    history = CounterHistory()
    rate_cache.load_into(history)
    return history


def _snapshots(jobs: dict[str, Path], transport: str, history: Any = None) -> tuple[list[Any], str | None]:
    """One refresh of the monitor core (the same one the TUI polls), and why Slurm is down if it is; its rates
    over ``history`` (a new `status_history()` when None) and what this refresh adds to it."""
    if not jobs:  # nothing to refresh: no Monitor, no event loop, no Slurm
        return [], None
    from srt_tui.state import rate_cache

    down: str | None = None
    history = history if history is not None else status_history()

    async def run() -> list[Any]:
        nonlocal down
        monitor, down = _monitor_for(jobs, transport, keep_trying=False, history=history)
        try:
            snaps = list(await monitor.refresh(jobs))
        finally:
            await monitor.aclose()
        rate_cache.save_from(monitor.history)
        return snaps

    import asyncio  # here, not at the top: `--help` and the other commands need no event loop

    snaps = asyncio.run(run())
    return snaps, down


def snapshot_json(snap: Any) -> dict[str, Any]:
    """`status --json` for one job: every JobSnapshot field plus derived ones (ready, healthy, degraded, and
    `health`: the stage the other faces show, `degraded` for a ready job with a role that has no healthy worker)."""
    from srt_tui.monitor.role_health import health_json

    return asdict(snap) | {
        "stage_seen": snap.stage_seen,
        "ready": snap.is_ready,
        "final": snap.is_final,
        "degraded": snap.degraded,
        "healthy": {k: list(v) for k, v in snap.healthy_counts().items()},
        "health": health_json(snap),
    }


def _confirmed(prep: Any) -> bool:
    """Ask on the terminal (on stderr, so `--json` stays clean); without a terminal, refuse: only -y submits."""
    if not sys.stdin.isatty():
        print(
            "srt-tui: not submitted: no terminal to confirm on (fix: add -y to submit without asking)",
            file=sys.stderr,
        )
        return False
    plan = prep.plan
    sys.stderr.write(
        f"{plan.name}: {plan.topology} {plan.serving} on {plan.nodes} node(s) "
        f"× {plan.gpus_per_node} GPUs (profile {plan.profile}, time {prep.job.time_limit})\nSubmit? [y/N] "
    )
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() in ("y", "yes"):
        return True
    print("not submitted", file=sys.stderr)
    return False


def _tags(raw: str | None) -> list[str] | None:
    """`--tags a,b` as srtctl reads it: comma-separated, blanks dropped; None when there are none."""
    tags = [t.strip() for t in (raw or "").split(",") if t.strip()]
    return tags or None


def _cmd_apply(args: argparse.Namespace) -> int:
    from srt_tui.cli.sweep import apply_members, file_members

    members = file_members(args.file)
    if members is not None:  # a sweep (or override file) without a selector: every job, as one group
        _warn_interrupted(args.output)
        return apply_members(args, members, _tags(args.tags))  # says its own JSON outcome
    if not args.json:
        return _apply(args)
    try:
        return _apply(args)
    except SrtError as exc:  # automation reads stdout: one JSON line says it failed (srtctl's shape)
        print(json.dumps({"status": "error", "error": str(exc)}), flush=True)
        raise


def _apply(args: argparse.Namespace) -> int:
    from srt_tui.cli.submission import submission_json
    from srt_tui.core.api import prepare
    from srt_tui.slurm.submit import submit_prepared
    from srt_tui.state.jobindex import record_tags

    tags = _tags(args.tags)
    prep = prepare(args.file, args.profile, args.topology)
    warn_plan(prep)  # said before the prompt (and before a `-y` submit)
    # `--json` is the automation contract (the InferenceX launcher runs `apply … --json` without -y): no prompt
    if not args.yes and not args.json and not _confirmed(prep):
        return 1
    _warn_interrupted(args.output)
    output = Path(args.output) if args.output else None
    sub = submit_prepared(prep, args.launcher, output, args.transport, preflight=not args.no_preflight)
    for note in sub.notes:  # checks that could not run: said, not blocking
        print(f"preflight: {note}", file=sys.stderr)
    if sub.submit_note:  # pyslurm could not take a directive: the job went through sbatch
        print(f"srt-tui: note: {sub.submit_note}", file=sys.stderr)
    if tags:
        record_tags(sub.job_dir, tags)
    if args.json:
        print(json.dumps(submission_json(sub, prep, tags)))
    else:
        print(f"submitted job {sub.job_id} ({sub.launcher}) -> {sub.job_dir}")
        print(f"  follow it: srt-tui status {sub.job_id}   |   srt-tui wait {sub.job_id} --for ready")
    return 0


def _warn_interrupted(output: str | None) -> None:
    """Report (and make trackable) what an `apply` killed mid-submission left behind (its held Slurm job is
    cancelled by every command: see `settle_interrupted` in main)."""
    from srt_tui.state.jobindex import index_warnings, job_bases, recover_interrupted

    for note in [*index_warnings(), *recover_interrupted(job_bases(Path(output) if output else None))]:
        print(f"srt-tui: warning: {note}", file=sys.stderr)


def _cmd_status(args: argparse.Namespace) -> int:
    _warn_interrupted(args.output)
    if not args.watch:
        return _status_once(args, width=terminal_width())
    return _watch(args)


def _exit_code(unknown: list[SrtError], down: str | None) -> int:
    """`status`'s exit code: 2 when a JOB named is unknown (bad input comes first: its line names the fix), 3 when
    Slurm could not be asked about a Slurm job, else 0."""
    return 2 if unknown else 3 if down else 0


def terminal_width(stream: TextIO | None = None) -> int | None:
    """The columns a command fits its lines to on ``stream`` (stdout; `wait` says its lines on stderr): the
    terminal's (`COLUMNS` first, as shutil reads it), or ``None`` when ``stream`` is no terminal (a pipe or a file
    keeps every column and line whole, for the tools that parse it)."""
    import shutil

    out = stream or sys.stdout
    if not out.isatty():
        return None
    if out is sys.stdout:
        return shutil.get_terminal_size().columns
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(out.fileno()).columns
    except (OSError, ValueError):
        return shutil.get_terminal_size().columns


def _watch(args: argparse.Namespace) -> int:
    """`status` again every `--watch` seconds until Ctrl-C, as watch(1) would: a terminal gets the screen redrawn
    under a line saying when; a pipe or file gets one block per refresh (`--json`: one line). Ctrl-C ends it as it
    ends every command, exit 130 (`--help`'s exit codes): a script tells a watch stopped from one that ended."""
    import io
    import shutil
    import time
    from contextlib import redirect_stdout

    every = args.interval
    tty = sys.stdout.isatty()
    history = status_history()  # one window across the refreshes: the last minute's figures, as the TUI's
    said: set[str] = set()  # `--json`: the unknown JOBs' lines are said once on stderr, not at every refresh
    jobs, unknown = known_refs(args.jobs, args.output)
    if unknown and not jobs:  # no JOB named is known: nothing to watch
        return say_unknown(unknown)
    while True:  # until Ctrl-C: its KeyboardInterrupt is main's (exit 130)
        out = io.StringIO()
        width = terminal_width()
        with redirect_stdout(out):  # measured each refresh: a resized pane is fitted at the next one
            _status_once(args, compact=True, history=history, width=width, said=said)
        text = out.getvalue()
        if tty:
            when = time.strftime("%H:%M:%S")
            sys.stdout.write(f"\x1b[H\x1b[2Jevery {every:g} s · srt-tui status · {when} (Ctrl-C stops)\n\n")
            text = _fit_rows(text, shutil.get_terminal_size().lines - 3)
        elif not args.json:
            sys.stdout.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        sys.stdout.write(text)
        sys.stdout.flush()
        time.sleep(every)


def _fit_rows(text: str, rows: int) -> str:
    """`text` cut to `rows` lines, the last saying how many more there are (a redrawn screen never scrolls)."""
    lines = text.splitlines()
    if len(lines) <= max(rows, 1):
        return text
    keep = max(rows - 1, 0)
    return "\n".join([*lines[:keep], f"(+{len(lines) - keep} more lines: a taller terminal, or name the jobs)"]) + "\n"


def _status_once(
    args: argparse.Namespace,
    compact: bool = False,
    history: Any = None,
    width: int | None = None,
    said: set[str] | None = None,
) -> int:
    """One `status`: the table (or JSON: indented, or one line when `compact`, as `--watch` prints it, its rates
    over ``history``) of the jobs asked for, fitted to ``width`` (a terminal's; ``None``: every column); then an
    error line for each JOB named that is unknown (those not in ``said`` yet, which `--watch` keeps). The exit code
    (`_exit_code`): 2 with an unknown JOB, 3 when Slurm could not be asked about a Slurm job (printed all the same,
    its state UNKNOWN), as `--help` says."""
    jobs, unknown = known_refs(args.jobs, args.output)
    if compact and not args.json:  # watched: in the redrawn screen (on stderr, the next redraw would wipe them)
        for exc in unknown:
            print("\n".join(f"srt-tui: error: {printable(p.render())}" for p in exc.problems))
    try:
        return _print_status(args, jobs, unknown, compact, history, width)
    finally:
        if not compact or args.json:  # said once, `--watch --json` at its first refresh
            new = [exc for exc in unknown if said is None or str(exc) not in said]
            if said is not None:
                said.update(str(exc) for exc in new)
            say_unknown(new)


def _print_status(
    args: argparse.Namespace,
    jobs: dict[str, Path],
    unknown: list[SrtError],
    compact: bool,
    history: Any,
    width: int | None,
) -> int:
    """`_status_once`'s table (or JSON) of the known ``jobs``; its exit code."""
    if unknown and not jobs:  # only unknown JOBs: nothing to print but their errors
        if args.json:
            print(json.dumps([]))
        return 2
    snaps, down = _snapshots(jobs, args.transport, history)
    if not args.jobs:  # every known job: newest first, as the Monitor lists them (`status | head` shows it)
        snaps = sorted(snaps, key=_submitted, reverse=True)
    if down and not args.json:  # said once, not once per job (the JSON carries it in each job's sources)
        print(f"slurm: {down}", file=sys.stdout if compact else sys.stderr)  # watched: in the redrawn screen
    if args.json:
        print(json.dumps([snapshot_json(s) for s in snaps], indent=None if compact else 2))
        return _exit_code(unknown, down)
    if not snaps:
        print("no jobs known yet (srt-tui apply -f RECIPE)")
        return 0
    print_table(snaps, down, watched=history is not None, width=width)
    return _exit_code(unknown, down)


def print_table(snaps: list[Any], down: str | None, watched: bool = False, width: int | None = None) -> None:
    """`status`'s table of ``snaps``, each serving job's figures under it with their span (the Serving panel's
    words: `cells.serving_line`), then each job's problems (Slurm's said once above when ``down``); ``watched``:
    `--watch` prints it, whose next refresh measures what has no span yet. ``width``: a terminal's, which the
    table, serving and problem lines fit (`status_table`); ``None`` (a pipe): every column and line, whole."""
    from datetime import datetime

    from srt_tui.cli import status_table
    from srt_tui.monitor import cells

    now = datetime.now().astimezone()
    rows: list[dict[str, str]] = [
        {
            "job": str(s.job_id),
            "name": str(s.name),
            "state": cells.state_cell(s),
            "stage": cells.list_stage(s, now),
            # narrowed (80 columns), `pending (Resources, Slurm estimates start in ~10m)` read `pending …`
            # and `degraded · no healthy decode worker (2 hung)` reads `degraded` (HEALTHY says `D0/2`)
            "stage" + status_table.SHORT: cells.queued_wait(s, now, status_table.NARROW_CAPS["stage"])
            if s.stage == "pending"
            else cells.stage_cell(s, said=False),
            "healthy": cells.healthy_cell(s),
            "router": cells.router_cell(s),
            "rate": cells.rate(s.rate_per_s),
            # the deployment's counts, one thing in every row: the router's (else its workers'), never the benchmark's
            "requests": cells.number(s.served),
            "errors": cells.number(s.served_errors),
            "elapsed": cells.elapsed(s, now),
            # narrowed: `q 2m10s` where `queued 2m10s` does not fit, as the jobs list says it
            "elapsed" + status_table.SHORT: cells.waited(s, now),
            "gpu": cells.gpu_load(s.gpus),
        }
        for s in snaps
    ]
    keys = [c.key for c in status_table.COLUMNS]
    if not any(s.gpus for s in snaps):  # GPU UTIL only with a job that has a GPU exporter (telemetry)
        keys.remove("gpu")
    print(status_table.render(rows, keys, width))
    # what a figure with no span yet waits for: `--watch`'s next refresh, or another run within the window
    unmeasured = "rates from the next refresh" if watched else "rates: run `status` again within a minute"
    for s in snaps:
        if s.serving is not None and not s.serving.empty and not s.is_final:
            line = cells.serving_line(s.serving, unmeasured)
            print("\n".join(status_table.wrapped(f"{s.job_id}: serving: ", line, width)))
    for s in snaps:  # an ended job's benchmark: its own measured requests, apart from REQ (the router's, warm-up too)
        if bench := cells.benchmark_words(s):
            print(f"{s.job_id}: {bench} (srt-tui results {s.job_id})")
    for s in snaps:  # in a terminal each fits it: a path's middle gives way (a pipe keeps them whole)
        for line in cells.problems(s, skip_sources=frozenset({"slurm"}) if down else frozenset()):
            print("\n".join(status_table.problem_lines(f"{s.job_id}: ", line, width)))


#: a refresh interval: half a second to a day
_INTERVAL = seconds(0.5, 86400)


def _submitted(snap: Any) -> tuple[float, str]:
    """When a job was submitted (a job that does not say, first), its id breaking ties."""
    from srt_tui.core.isotime import parse_time

    when = parse_time(snap.submitted_at)
    return (when.timestamp() if when is not None else 0.0, snap.job_id)


def _cmd_wait(args: argparse.Namespace) -> int:
    jobs = _job_refs([args.job], args.output)
    if len(jobs) != 1 and args.log_file:  # one log to copy: whose?
        hint = "wait for the group without --log-file, or for one job: " + "; ".join(f"srt-tui wait {j}" for j in jobs)
        raise SrtError([Problem(field="--log-file", message=f"`{args.job}` is a group of {len(jobs)} jobs", hint=hint)])
    import asyncio

    return asyncio.run(_wait(jobs, args) if len(jobs) == 1 else _wait_group(jobs, args))


#: `wait`'s exit statuses, best first: reached, timed out (it may still get there), ended otherwise (it never will)
_WAIT_OUTCOMES = (0, 124, 1)


async def _wait_group(jobs: dict[str, Path], args: argparse.Namespace) -> int:
    """`wait` for a sweep's group (`status`, `results` and `cancel` take it; `wait` refused it): every member at
    once, each saying its lines as a lone `wait` does, until each has its outcome; the exit status is the worst of
    theirs (`worst_wait`)."""
    import asyncio

    return worst_wait(await asyncio.gather(*(_wait({job: path}, args) for job, path in jobs.items())))


def worst_wait(codes: list[int]) -> int:
    """The worst of several `wait` exit statuses: 1 (a job ended otherwise) over 124 (one timed out) over 0."""
    return max(codes, key=lambda code: _WAIT_OUTCOMES.index(code) if code in _WAIT_OUTCOMES else len(_WAIT_OUTCOMES))


#: After the job's own events say it ended, how long `wait --log-file` waits for Slurm to say so too
#: (so the batch script's last lines are in the log) before it drains the log and exits anyway.
SLURM_END_GRACE_S = 30.0


def progress_line(stage: str, detail: str) -> str:
    """What `wait` prints for a stage, as `status` says it: the script's detail often starts with its stage
    ("serving at http://…"), which is then said once, not `serving serving at …`; else `stage: detail`
    (`cancelled: stopped by a signal`, not `cancelled stopped by a signal`)."""
    if not detail or detail.startswith(stage):
        return detail or stage
    return f"{stage}: {detail}"


async def _wait(jobs: dict[str, Path], args: argparse.Namespace) -> int:
    """Poll with one Monitor (pooled connections, back-off) until the target, the job's end or the timeout.

    A Slurm outage only makes the Slurm source stale: the loop keeps polling and sees the controller
    again when it returns. With ``--log-file`` the log is copied to stdout as it grows and the target
    is the job's end (srtctl's `wait`).
    """
    import asyncio

    from srt_tui.monitor.files.logfollow import LogFollower
    from srt_tui.slurm.client import TERMINAL_STATES

    monitor, down = _monitor_for(jobs, args.transport, keep_trying=True)
    target = args.target or ("done" if args.log_file else "ready")
    follower = LogFollower(Path(args.log_file), sys.stdout) if args.log_file else None
    deadline = time.monotonic() + args.timeout if args.timeout else None
    ended_at: float | None = None
    last = ""
    if down and not args.quiet:
        print(f"slurm: {down} (waiting for it to come back)", file=sys.stderr)
    try:
        while True:
            snap = (await monitor.refresh(jobs))[0]
            if follower is not None:
                follower.poll()
            line = progress_line(snap.stage, snap.stage_detail)
            if line != last and not args.quiet:
                _tell(f"{snap.job_id}: ", line)
                last = line
            if target == "ready" and ready_by_its_word(snap):
                return 0
            if snap.is_final:
                ended_at = ended_at if ended_at is not None else time.monotonic()
                settled = snap.slurm_state in TERMINAL_STATES or follower is None
                if settled or time.monotonic() - ended_at >= SLURM_END_GRACE_S:
                    return _wait_outcome(snap, target, follower, args.log_file)
            if deadline is not None and time.monotonic() >= deadline:
                if follower is not None:
                    follower.poll(final=True)
                _tell(
                    f"{snap.job_id}: ", f"timed out after {args.timeout:g}s waiting for {target} (stage {snap.stage})"
                )
                return 124
            await asyncio.sleep(args.interval)
    finally:
        await monitor.aclose()


def ready_by_its_word(snap: JobSnapshot) -> bool:
    """`wait --for ready`'s test: the job is ready by its own events, not only as the Monitor saw it a poll ahead
    (its router has every worker while the job's wait has not written `router ready` yet), so what runs after `wait`
    finds the job's `router ready` in its events and its log, as it always did."""
    from srt_tui.monitor.model import READY_STAGES

    return snap.stage_by(seen_by_monitor=False) in READY_STAGES


def _ready_at(job_dir: Path) -> str:
    """When the job's own log says it first became ready (router ready, benchmark or serving); "" if never."""
    from srt_tui.core.jobdir.events import read_events
    from srt_tui.monitor.model import READY_STAGES

    return next((e.time for e in read_events(job_dir) if e.stage in READY_STAGES), "")


def _wait_outcome(snap: Any, target: str, follower: Any, log_file: str | None) -> int:
    """The exit code of a `wait` whose job ended: 0 if it completed (for `done`), else 1. A failed job's last
    words are its failing log's line that says why, as `srt-tui status` prints it."""
    from srt_tui.monitor.cells import failure_lines

    if follower is not None:
        follower.poll(final=True)
        if not follower.seen:
            _tell(f"{snap.job_id}: ", f"the log {log_file} never appeared")
    if target == "done" and snap.stage == "completed":
        return 0
    # a fast benchmark can serve and finish between two polls: it was ready, and a completed job did its work
    ready_at = _ready_at(Path(snap.job_dir)) if target == "ready" else ""
    if ready_at:
        said = f"was ready at {ready_at}, then ended ({snap.stage}): {snap.stage_detail}"
    else:
        when = "" if target == "done" else " before it was ready"
        said = f"ended ({snap.stage}){when}: {snap.stage_detail}"
    _tell(f"{snap.job_id} ", said)
    for line in failure_lines(snap):  # under the sentence, as its own indent says
        _tell("", line)
    return 0 if ready_at and snap.stage == "completed" else 1


def _tell(prefix: str, text: str) -> None:
    """One of `wait`'s lines on stderr, fitted to its terminal as `status` fits its problem lines (one function:
    a path's middle gives way, then whole words wrap under the text; op11: a long reason wrapped mid-word at 80
    columns); a pipe or a file gets it whole."""
    from srt_tui.cli.status_table import problem_lines

    print("\n".join(problem_lines(prefix, text, terminal_width(sys.stderr))), file=sys.stderr)


def _cmd_cancel(args: argparse.Namespace) -> int:
    import re

    from srt_tui.slurm.cancel import cancel_job
    from srt_tui.slurm.local import is_local_job, recorded_job_dir
    from srt_tui.slurm.select import get_client
    from srt_tui.state.jobindex import find_job_dir

    # one client for every Slurm job named (a sweep's members): Slurm pinged once, when first needed
    slurm = functools.cache(lambda: get_client(args.transport))

    def cancel(job_id: str, job_dir: Path) -> Any:
        return cancel_job(job_id, job_dir, args.transport, None if is_local_job(job_id) else slurm())

    # 0: every JOB named was cancelled or had already ended (as scancel, which exits 0 for a finished job: a
    # script that cancels twice is not failed; said on stdout); 1: for some JOB nothing was, because Slurm
    # does not know it or it is another job (scancel says nothing and exits 0 there: a typo'd id is told);
    # 2: a JOB that is no job id, directory or group (bad input), said after the others were cancelled
    rc = 0
    unknown: list[SrtError] = []
    for ref in args.jobs:
        path = find_job_dir(ref, Path(args.output) if args.output else None)
        recorded = recorded_job_dir(ref) if path is None and is_local_job(ref) else None
        if path is None and re.fullmatch(r"\d+(_\d+)?", ref):
            outcomes = [cancel(ref, Path())]  # a Slurm job launched elsewhere: no directory
        elif recorded is not None:  # a local job whose directory was removed: its processes are recorded
            outcomes = [cancel(ref, recorded)]
        else:
            jobs, missing = known_refs([ref], args.output)  # `cancel 26 nope 27` stopped at `nope`: 27 ran on
            unknown += missing
            outcomes = [cancel(j, d) for j, d in jobs.items()]
            if missing:
                continue
        for outcome in outcomes:
            print(outcome.describe(), file=sys.stdout if outcome.cancelled or outcome.ended else sys.stderr)
        # a sweep whose members partly ended still counts as done
        if not any(o.cancelled or o.ended for o in outcomes):
            rc = 1
    return say_unknown(unknown) or rc


def add_job_commands(sub: Any, recipe_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register the job subcommands on the CLI parser."""

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("-o", "--output", type=path_arg, help="output directory holding job directories")
        add_transport_argument(p)

    a = sub.add_parser("apply", help="render, write the job directory and submit")
    recipe_args(a)
    common(a)
    a.add_argument(
        "--launcher",
        default="auto",
        choices=["auto", "slurm", "local"],
        help="auto: the profile's `launcher` (Slurm by default; the `local` profiles: this machine); when "
        "Slurm is asked for and no controller answers, the profile's `fallback_launcher`, else an error. "
        "slurm: Slurm even for the `local` profiles. local: this machine",
    )
    a.add_argument(
        "-y", "--yes", action="store_true", help="submit without asking (required without a terminal, unless --json)"
    )
    a.add_argument(
        "--json",
        action="store_true",
        help="print one JSON line: status, slurm_job_id, job_name, output_dir, metadata_path, config_path, "
        'tags (as srtctl prints them), job_id, job_dir; on failure {"status": "error", "error": …}. '
        "Automation: implies no confirmation prompt, as -y does",
    )
    a.add_argument("--tags", help="comma-separated tags, recorded in job.json and echoed by --json")
    a.add_argument(
        "--no-preflight",
        action="store_true",
        help="skip the checks before submitting: the model and container paths from this machine (srtctl's "
        "--no-preflight: for paths only the compute nodes see), the programs a container-less job starts, and "
        "partition, account, nodes, GPUs and time limit against the cluster",
    )
    a.set_defaults(func=_cmd_apply)

    s = sub.add_parser("status", help="state, stage, worker health and router registrations of jobs")
    s.add_argument(
        "jobs",
        nargs="*",
        metavar="JOB",
        help="job id, directory or sweep group id (default: every known job not removed from the list)",
    )
    common(s)
    s.add_argument("--json", action="store_true")
    s.add_argument(
        "-w", "--watch", action="store_true", help="show it again every --interval seconds until Ctrl-C (as watch(1))"
    )
    s.add_argument(
        "-n",
        "--interval",
        type=_INTERVAL,
        default=2.0,
        metavar="SECONDS",
        help="with --watch: seconds between refreshes (default 2); with --json, one line per refresh",
    )
    s.set_defaults(func=_cmd_status)

    w = sub.add_parser(
        "wait",
        help="wait until a job (every job of a sweep group) is ready or done (exit 0; 1 if it ended otherwise; 124 "
        "timeout)",
        description="Wait for a job. With --log-file (srtctl's `wait`): copy that log to stdout from its "
        "start as it grows (waiting for it to appear) until the job ends; exit 0 if it completed, 1 if it "
        "failed, was cancelled or timed out. A Slurm outage is waited out, not reported as an outcome. A failed "
        "job's last line on stderr is its failing log's line that says why, as `status` prints it. A sweep's group id "
        "waits for every member; the exit status is the worst of theirs (1 before 124 before 0).",
    )
    w.add_argument("job", metavar="JOB", help="job id, job directory or sweep group")
    w.add_argument(
        "--for", dest="target", choices=["ready", "done"], help="ready (default) or done (default with --log-file)"
    )
    w.add_argument(
        "--log-file",
        metavar="PATH",
        type=path_arg,
        help="stream this log to stdout while waiting for the job's end (e.g. OUTPUT_DIR/logs/sweep_JOBID.log)",
    )
    w.add_argument("--timeout", type=seconds(zero="no limit"), default=0, help="seconds (0: no limit)")
    w.add_argument("--interval", type=_INTERVAL, default=1.0, help="seconds between looks (default 1)")
    w.add_argument("-q", "--quiet", action="store_true")
    common(w)
    w.set_defaults(func=_cmd_wait)

    c = sub.add_parser(
        "cancel",
        help="cancel jobs (Slurm scancel or the local launcher)",
        description="Cancel jobs (every process of each: Slurm's scancel, or the local launcher). A JOB that "
        "had already ended (or is ending), or a local job with nothing running, is said so on stdout and counts as "
        "done, as scancel does with a finished job. Exit status: 0 when every JOB named was cancelled or had "
        "already ended; 1 when for some "
        "JOB nothing was cancelled because Slurm does not know the id (a typo, or purged long after it ended) "
        "or the id is now another job's (said on stderr: scancel says nothing there and exits 0); 2 on bad "
        "arguments, and when a JOB is no job id, directory or group (the other JOBs are cancelled all the same); 3 "
        "when Slurm cannot be reached.",
    )
    c.add_argument("jobs", nargs="+", metavar="JOB", help="job id, job directory, or a Slurm id launched elsewhere")
    common(c)
    c.set_defaults(func=_cmd_cancel)
