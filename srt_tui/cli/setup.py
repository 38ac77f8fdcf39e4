"""`srt-tui setup --probe` and `srt-tui doctor`: the headless faces of Setup mode."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import re
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from srt_tui.cli.args import alias_path_arg, path_arg, seconds
from srt_tui.cli.printable import printable
from srt_tui.setup.findings import Finding, worst

if TYPE_CHECKING:  # the probes pull in every Slurm transport: imported when a probe runs, not for `--help`
    from srt_tui.setup.probes import ProbeOptions, ProbeRun
    from srt_tui.slurm.preflight import PreflightCheck

T = TypeVar("T")

#: how often a probe job that waits for its node is said on stderr
WAITING_EVERY = 10.0


def _probe_args(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    p.add_argument("--partition", help="partition to probe (default: the cluster's default partition)")
    p.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="PATH",
        type=path_arg,
        help="shared path the compute node must see (repeatable)",
    )
    p.add_argument(
        "--extra-path", metavar="DIR", type=path_arg, help="directory prepended to PATH in the probe job (tool modules)"
    )
    p.add_argument(
        "--workdir", metavar="DIR", type=path_arg, help="shared directory for the probe job's script and output"
    )
    p.add_argument("--timeout", type=seconds(), default=20.0, help="seconds per Slurm command (default 20)")
    p.add_argument("--tool-timeout", type=seconds(), default=15.0, help="seconds per GPU tool on the node (default 15)")
    p.add_argument(
        "--node-timeout", type=seconds(), default=120.0, help="seconds to wait for the probe job (default 120)"
    )
    p.add_argument("--no-node", action="store_true", help="skip the compute-node probe job")


def _probe_arg_problems(args: argparse.Namespace) -> list[str]:
    """What is wrong with the probe options' paths, said before any probe runs (`FLAG: message (fix: …)`): the
    compute node checks `--path` and prepends `--extra-path` to its PATH, where a relative path means nothing sure;
    `--workdir` must be a directory (made when missing)."""
    out = [
        f"--path: `{path}` is relative (fix: give the absolute path the compute nodes see)"
        for path in args.path
        if not Path(path).is_absolute()
    ]
    if args.extra_path is not None and not Path(args.extra_path).is_absolute():
        out.append(f"--extra-path: `{args.extra_path}` is relative (fix: give the tool directory's absolute path)")
    if args.workdir is not None:
        workdir = Path(args.workdir).expanduser()
        blocking = next((p for p in (workdir, *workdir.parents) if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            out.append(
                f"--workdir: {blocking} is not a directory (fix: name a directory on the shared file system, new or "
                "existing)"
            )
    return out


def _refused(problems: list[str]) -> int:
    """Each problem on its own `srt-tui: error:` line, and exit 2: nothing was probed or submitted."""
    for problem in problems:
        print(f"srt-tui: error: {printable(problem)}", file=sys.stderr)
    return 2


def _options(args: argparse.Namespace, extra_paths: tuple[str, ...] = ()) -> ProbeOptions:
    from srt_tui.setup.probes import ProbeOptions

    return ProbeOptions(
        partition=args.partition,
        paths=tuple(dict.fromkeys([*args.path, *extra_paths])),
        extra_path=args.extra_path,
        # absolute: the probe job's output path is given to sbatch, which reads a relative one from the job's directory
        workdir=Path(args.workdir).expanduser().absolute() if args.workdir else None,
        command_timeout=args.timeout,
        tool_timeout=args.tool_timeout,
        node_timeout=args.node_timeout,
        probe_node=not args.no_node,
    )


class _Progress:
    """Each probe's outcome on stderr, and a probe job that waits for its node (its state, the reason, how long,
    whose jobs hold the nodes) when first seen, when that changes, and every WAITING_EVERY seconds, so a busy
    partition is never a silent wait. A line that cannot be written (its reader is gone: `2>&1 | head -4` once
    `head` has its lines, a dropped SSH session) stops the probes as Ctrl-C does (`stop`, set by `_stoppable`): the
    probe job they submitted is cancelled, not left in the queue with no one to read what it finds."""

    def __init__(self) -> None:
        self.said_at: float | None = None
        self.said = ""
        #: the probes' stop event (`_stoppable`'s), set when a line could not be written
        self.stop: threading.Event | None = None
        #: why a line could not be written (then nothing more is tried)
        self.broken: OSError | None = None

    def __call__(self, step: str, status: str, detail: str) -> None:
        from srt_tui.setup.probes import STEPS

        label = dict(STEPS).get(step, step)
        if status != "running":
            self._say(f"  [{status:>7}] {label}" + (f": {detail}" if detail else ""))
        elif detail and step == "node":
            now = time.monotonic()
            # its words changed (Slurm's reason came, or which jobs hold the nodes): said now, not 10 s later
            gist = re.sub(r"\d+", "#", detail)
            if self.said_at is None or now - self.said_at >= WAITING_EVERY or gist != self.said:
                self.said_at, self.said = now, gist
                self._say(f"  [waiting] {label}: {detail}; Ctrl-C cancels it")

    def _say(self, line: str) -> None:
        if self.broken is not None:
            return
        try:
            print(line, file=sys.stderr, flush=True)
        except (OSError, ValueError) as exc:  # EPIPE, EIO (the terminal is gone), a closed stream
            self.broken = exc if isinstance(exc, OSError) else BrokenPipeError(str(exc))
            if self.stop is not None:
                self.stop.set()


def _interrupted_outcome(run: ProbeRun) -> str:
    """What became of the probe job after the operator stopped the probes, for the `interrupted` line."""
    if run.node_job is None:
        return "no probe job was submitted"
    if run.node_job_cancelled:
        return f"cancelled probe job {run.node_job}"
    node = next((f for f in run.findings if f.name == "node" and f.error), None)
    return node.error if node is not None else f"probe job {run.node_job} had already ended"


def _stoppable(
    options: ProbeOptions,
    probe: Callable[[ProbeOptions], T],
    run_of: Callable[[T], ProbeRun],
    progress: _Progress | None = None,
) -> T:
    """Run `probe` on a worker thread with a stop event in its options, as the TUI's Setup does: SIGINT,
    SIGTERM or SIGHUP sets it (Setup's Esc), as does a progress line that cannot be written, so the probes cancel
    the probe job they submitted and end; a second Ctrl-C stops waiting for them (a repeated SIGTERM or SIGHUP does
    not: a dropped session sends SIGHUP twice, from the shell and the kernel). The probes' result; else
    KeyboardInterrupt saying the job's fate (a signal), or the write's error (a reader gone: exit 141)."""
    stop = threading.Event()
    options = dataclasses.replace(options, stop=stop)
    if progress is not None:
        progress.stop = stop
    done: list[T] = []
    failed: list[BaseException] = []
    signals: list[int] = []

    def work() -> None:
        try:
            done.append(probe(options))
        except BaseException as exc:  # noqa: BLE001 - raised again on the main thread
            failed.append(exc)

    def note(signum: int, frame: Any) -> None:
        if signals and signum == signal.SIGINT:
            raise KeyboardInterrupt("stopped waiting; a probe job may be left: `squeue -n srt-tui-probe` lists it")
        first = not signals
        signals.append(signum)
        stop.set()  # first: whatever the line below meets, the probes stop and cancel their job
        if first:
            # the terminal may be gone (SIGHUP): the probe job is cancelled all the same
            with contextlib.suppress(OSError, ValueError):
                print("srt-tui: stopping: cancelling the probe job…", file=sys.stderr, flush=True)

    worker = threading.Thread(target=work, name="setup-probes", daemon=True)
    old: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():  # only the main thread can own signals
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) is not signal.SIG_IGN:  # one ignored stays so (`nohup`, a shell's `&`)
                old[sig] = signal.signal(sig, note)
    try:
        worker.start()
        worker.join()
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if failed:
        raise failed[0]
    if signals:
        raise KeyboardInterrupt(_interrupted_outcome(run_of(done[0])))
    if progress is not None and progress.broken is not None:
        raise progress.broken
    return done[0]


def _print_findings(title: str, findings: list[Finding], summary: str = "") -> None:
    """``findings`` under ``title``, ``summary`` (`failing_line`) first when given."""
    print(title)
    if summary:
        print("  " + summary)
    for finding in findings:
        for line in finding.render().splitlines():
            print("  " + line)


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, Path):
        return str(value)
    return value


def _run_json(run: ProbeRun) -> dict[str, Any]:
    data: dict[str, Any] = _jsonable(run)
    return data


#: the options only `--probe` reads, with their defaults: the TUI's Setup asks for these in its fields
PROBE_ONLY: tuple[tuple[str, object], ...] = (
    ("write", None),
    ("json", False),
    ("name", "my-cluster"),
    ("account", None),
    ("time_limit", None),
    ("max_nodes", None),
    ("output_dir", None),
    ("model", []),
    ("container", []),
    ("interface", None),
    ("gpu_request", "auto"),
    ("runtime", "auto"),
    ("force", False),
)


def _open_setup(args: argparse.Namespace) -> int:
    """`srt-tui setup` without --probe: the TUI opened on its Setup mode, the probe options (`--partition`,
    `--path`, the timeouts) filled in; off a terminal, the one line that says to add --probe (exit 2)."""
    given = [f"--{name.replace('_', '-')}" for name, default in PROBE_ONLY if getattr(args, name) != default]
    if given:
        print(
            f"srt-tui: error: {', '.join(given)}: only with --probe; without it `srt-tui setup` opens the TUI's "
            "Setup mode, which asks for these in its fields",
            file=sys.stderr,
        )
        return 2
    from srt_tui.cli.terminal import not_terminals, said

    missing = not_terminals()
    if missing:
        print(
            "srt-tui: error: `srt-tui setup` opens the TUI's Setup mode, which needs a terminal "
            f"({said(missing)} {'is' if len(missing) == 1 else 'are'} not one here); add --probe to probe and print "
            "the proposal without questions",
            file=sys.stderr,
        )
        return 2
    from srt_tui.tui.app import run_app
    from srt_tui.tui.setup.screen import SetupScreen

    options = _options(args)
    return run_app(args, setup=lambda hub: SetupScreen(hub, options=options))


def _cmd_setup(args: argparse.Namespace) -> int:
    from srt_tui.core.paths import user_profiles_dir
    from srt_tui.core.spec.profile import parse_profile
    from srt_tui.setup.overwrite import existing_profile, file_mpi_plugin, mpi_plugin_note
    from srt_tui.setup.probes import run_probes
    from srt_tui.setup.proposal import OperatorChoices, build_proposal, parse_aliases, write_proposal

    if not args.probe:
        return _open_setup(args)
    try:
        models = parse_aliases(args.model)
        containers = parse_aliases(args.container)
    except ValueError as exc:
        print(f"srt-tui: error: {exc}", file=sys.stderr)
        return 2
    choices = OperatorChoices(
        name=args.name,
        account=args.account,
        time_limit=args.time_limit,
        max_nodes=args.max_nodes,
        output_dir=args.output_dir,
        model_paths=models,
        containers=containers,
        interface=args.interface,
        gpu_request=args.gpu_request,
        container_runtime=args.runtime,
    )
    # every argument checked before anything runs: a name like `../x` was refused only after every probe, the probe
    # job too, had run (op12), and named the file to read before that
    problems = [*_choice_problems(choices), *_probe_arg_problems(args), *_write_problems(args.write)]
    if problems:
        return _refused(problems)
    aliased = tuple(v for v in [*models.values(), *containers.values()] if v.startswith("/"))
    extra = (*aliased, *([args.output_dir] if args.output_dir else []))
    progress = None if args.json else _Progress()
    # the file this writes (or would write): a node it could not probe keeps that file's node keys, as Setup does;
    # its MPI plugin is tried too (pmix and pmi2 always are), so the review can say when it does not load here
    destination = Path(args.write) if args.write else user_profiles_dir() / f"{args.name}.yaml"
    old = existing_profile(destination)
    plugin = file_mpi_plugin(old) if old else None
    options = dataclasses.replace(_options(args, extra), mpi_also=(plugin,) if plugin else ())
    run = _stoppable(options, lambda options: run_probes(options, progress or _quiet), lambda run: run, progress)
    proposal = build_proposal(run, choices, old, str(destination))
    note = mpi_plugin_note(old, proposal.data(), run.mpi)
    target: Path | None = None
    write_error = ""
    if args.write is not None:
        target = destination
        try:
            _check_overwrite(target, old, proposal.data(), args.force, note)
            write_proposal(proposal, target, header=f"{args.name}: written by `srt-tui setup --probe`")
            parse_profile(target)
        except (ValueError, OSError) as exc:
            write_error = str(exc)
    if args.json:
        doc = {
            "probes": _run_json(run),
            "proposal": {
                "profile": proposal.data(),
                "keys": [_jsonable(k) for k in proposal.keys],
                "problems": proposal.problems,
                "overwrite_notes": [note] if note else [],
            },
            "written": str(target) if target and not write_error else None,
            "write_error": write_error or None,
        }
        print(json.dumps(doc, indent=2, default=str))
    else:
        _print_findings("Probes:", run.findings)
        print("\nProposed profile:")
        sys.stdout.write(proposal.to_yaml())
        for problem in proposal.problems:
            print(f"problem: {problem}")
        if note:  # the file it writes over (or would): what is wrong with it, and what replaces it
            print(f"note: {destination}: {note}")
        if target and not write_error:
            print(f"\nwrote {target}")
    if write_error:
        print(f"srt-tui: error: profile not written: {write_error}", file=sys.stderr)
        return 1
    return 1 if proposal.problems or worst(run.findings) == "error" else 0


#: each operator choice's flag, for its error line (`--name: `../x` must be a plain file name`)
_CHOICE_FLAGS = {
    "name": "--name",
    "account": "--account",
    "time_limit": "--time-limit",
    "max_nodes": "--max-nodes",
    "output_dir": "--output-dir",
    "interface": "--interface",
    "model_paths": "--model",
    "containers": "--container",
}


def _choice_problems(choices: Any) -> list[str]:
    """The operator's choices the profile would refuse, each named by its flag (and alias: `--model m: …`)."""
    from srt_tui.setup.proposal import choice_problems

    out = []
    for where, message in choice_problems(choices):
        choice, _, alias = where.partition(".")
        flag = _CHOICE_FLAGS.get(choice, choice)
        out.append(f"{flag}{' ' + alias if alias else ''}: {message}")
    return out


def _write_problems(write: str | None) -> list[str]:
    """`--write PATH` that cannot become a profile file: a directory, or under something that is not one."""
    if not write:
        return []
    target = Path(write)
    if target.is_dir():
        return [f"--write: {target} is a directory (fix: give the profile file's path, e.g. {target}/NAME.yaml)"]
    blocking = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        return [f"--write: {blocking} is not a directory (fix: give a profile file's path in a directory)"]
    return []


def _quiet(step: str, status: str, detail: str) -> None:
    """`--json`'s progress: nothing on stderr."""


def _check_overwrite(target: Path, old: dict[str, Any], new: dict[str, Any], force: bool, note: str = "") -> None:
    """Raise ValueError naming the keys that writing ``new`` over the profile file ``target`` loses or changes (the
    TUI's Setup asks about the same keys), and ``note`` (its `mpi_plugin` does not load here), unless ``force``; a
    write that loses and changes nothing goes ahead."""
    from srt_tui.setup.overwrite import change_lines, profile_changes

    lost, changed = profile_changes(old, new) if old else ([], [])
    if force or not target.exists() or not (lost or changed):
        return
    said = "; ".join([*change_lines(lost, changed), *([f"note: {note}"] if note else [])])
    raise ValueError(
        f"{target} exists and writing over it would change it: {said} "
        "(fix: add --force to write over it, or write elsewhere with --write PATH or --name NAME)"
    )


def _recipe_preflight(prep: Any) -> list[PreflightCheck]:
    """`doctor -f RECIPE`: the preflight of that recipe's job (``prep``, read before the probes ran): its model and
    container paths from this node (as `srt-tui preflight`), and partition, account, nodes, GPUs and time against the
    cluster; worst first (`worst_first`), as `apply` and the Submit step list them."""
    from srt_tui.slurm.preflight import demand_of, path_checks, preflight, worst_first
    from srt_tui.slurm.select import get_client

    paths = [c if c.ok else dataclasses.replace(c, evidence="checked from this node") for c in path_checks(prep, "cli")]
    return worst_first([*paths, *preflight(get_client(None, require_reachable=False), demand_of(prep), face="cli")])


def _cmd_doctor(args: argparse.Namespace) -> int:
    from srt_tui.core.api import prepare_job
    from srt_tui.core.plan.paths_preflight import reads_model_path
    from srt_tui.core.spec.profile import load_profile
    from srt_tui.core.spec.recipe import load_recipe
    from srt_tui.setup.doctor import preflight_findings, run_doctor
    from srt_tui.setup.doctor_profile import pick_doctor_profile
    from srt_tui.slurm.preflight import failing_line

    # every argument read before anything runs: a recipe that does not load (or `-t` that does not fit it) was said
    # only after every probe, its probe job too, had run
    if args.topology and not args.file:
        return _refused(["-t/--topology: only with -f RECIPE (fix: add -f RECIPE, or drop -t)"])
    problems = _probe_arg_problems(args)
    if problems:
        return _refused(problems)
    given = getattr(args, "profile", None)
    pick = None if given else pick_doctor_profile()  # without -p: the profile the operator would use, never the demo
    if pick is not None and pick.loaded is None:
        return _no_profile(pick.why, pick.fix, args.json)
    loaded = load_profile(given) if pick is None or pick.loaded is None else pick.loaded
    prep = None
    if args.file:  # the recipe's job on the profile checked
        recipe, source = load_recipe(args.file)
        prep = prepare_job(recipe, loaded, source, args.topology)
    progress = None if args.json else _Progress()
    read = (prep.job.model_path,) if prep is not None and reads_model_path(prep.job) else ()
    run, checks = _stoppable(
        _options(args),
        lambda options: run_doctor(loaded.profile, options, progress, read),
        lambda found: found[0],
        progress,
    )
    recipe_checks = _recipe_preflight(prep) if prep is not None else []  # as `apply` checks it before sbatch
    recipe_findings = preflight_findings(recipe_checks)
    checks += recipe_findings
    everything = [*run.findings, *checks]
    if args.json:
        print(
            json.dumps(
                {
                    "profile": str(loaded.path or loaded.name),
                    "probes": [_jsonable(f) for f in run.findings],
                    "checks": [_jsonable(f) for f in checks],
                },
                indent=2,
            )
        )
    else:
        print(f"doctor: profile {loaded.name} ({loaded.source}: {loaded.path})")
        if pick is not None:  # chosen without -p: said, so the operator knows what was checked
            print(f"  chosen: {pick.why}; -p NAME checks another")
        _print_findings("Probes:", run.findings)
        _print_findings("Checks:", checks[: len(checks) - len(recipe_findings)])
        if prep is not None:  # the recipe's own, several counted and named on top as `apply` and Submit do
            line = failing_line(recipe_checks) if len(recipe_checks) > 1 else ""
            _print_findings(f"Preflight of {prep.job.recipe.name}:", recipe_findings, line)
        bad = [f for f in everything if f.level == "error"]
        print(f"\n{len(bad)} problem(s)" if bad else "\nno problems found")
    return 1 if worst(everything) == "error" else 0


def _no_profile(why: str, fix: str, as_json: bool) -> int:
    """Doctor without -p found no profile of the operator's to check: said with the way to one. Not a problem of the
    cluster or of a profile, so exit 0 (the demo needs no check)."""
    if as_json:
        print(json.dumps({"profile": None, "note": why, "fix": fix, "probes": [], "checks": []}, indent=2))
    else:
        print(f"doctor: nothing checked: {why}\n  fix: {fix}")
    return 0


def _node_count(text: str) -> int:
    """`--max-nodes`: a whole number of nodes, at least 1 (argparse says the flag and this message)."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"`{text}` is not a node count: a whole number, at least 1")
    return int(text)


def add_setup_commands(sub: Any) -> None:
    """Register `setup` and `doctor` on the CLI's subparsers."""
    s = sub.add_parser(
        "setup",
        help="probe the cluster and propose a profile: opens the TUI's Setup mode (--probe: non-interactive)",
        description=(
            "Probe the cluster and propose a profile with the evidence behind each key. On a terminal, "
            "`srt-tui setup` opens the TUI on its Setup mode (--partition, --path and the timeouts filled in); "
            "--probe probes and prints the proposal without questions (--write writes it), for scripts and "
            "anything that is not a terminal."
        ),
    )
    s.add_argument("--probe", action="store_true", help="probe and print the proposal, no questions (no TUI)")
    # what the TUI's Setup asks in its fields: on the command line these need --probe
    q = s.add_argument_group("with --probe only (the TUI's Setup asks for these in its fields)")
    q.add_argument(
        "--write",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        type=path_arg,
        help="write the profile (default: the user profile directory, <name>.yaml)",
    )
    q.add_argument(
        "--force",
        action="store_true",
        help="with --write: write over an existing profile even when that loses or changes keys (refused otherwise, "
        "naming them, as the TUI's Setup asks)",
    )
    q.add_argument("--json", action="store_true", help="print probes and proposal as JSON")
    q.add_argument("--name", default="my-cluster", help="profile name (default my-cluster)")
    q.add_argument("--account", help="default account (else sacctmgr's)")
    q.add_argument("--time-limit", help="default time limit HH:MM:SS")
    q.add_argument(
        "--max-nodes",
        type=_node_count,
        metavar="N",
        help="most nodes a job may take (default: the probed partition's node count)",
    )
    q.add_argument("--output-dir", type=path_arg, help="shared directory for job directories")
    q.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="ALIAS=PATH",
        type=alias_path_arg,
        help="model alias (repeatable)",
    )
    q.add_argument(
        "--container", action="append", default=[], metavar="ALIAS=IMAGE", help="container alias (repeatable)"
    )
    q.add_argument("--interface", help="network interface (else the probed one)")
    q.add_argument(
        "--gpu-request",
        choices=["auto", "directive", "gres"],
        default="auto",
        help="force --gpus-per-node or the GRES escape hatch (default: what sbatch accepts)",
    )
    q.add_argument("--runtime", choices=["auto", "pyxis", "none"], default="auto", help="container runtime")
    _probe_args(s.add_argument_group("probes (the TUI's Setup too)"))
    s.set_defaults(func=_cmd_setup)

    d = sub.add_parser("doctor", help="check a profile against the live cluster; each finding with a fix")
    d.add_argument("-p", "--profile", default=argparse.SUPPRESS, type=path_arg, help="profile name or path")
    d.add_argument(
        "-f", "--file", type=path_arg, help="also preflight this recipe's job (partition, account, nodes, GPUs, time)"
    )
    d.add_argument("-t", "--topology", help="with -f: override worker counts (1P1D, 2P1D, …)")
    d.add_argument("--json", action="store_true")
    _probe_args(d)
    d.set_defaults(func=_cmd_doctor)
