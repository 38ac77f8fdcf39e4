"""`srt-tui` command line: the headless face of the core (the TUI is the other one).

Each subcommand imports only what it needs, so `srt-tui dry-run` starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from srt_tui.cli.args import path_arg
from srt_tui.cli.printable import printable, warn_plan


def _cmd_dry_run(args: argparse.Namespace) -> int:
    from srt_tui.cli.library_check import check_library, wants_library

    if wants_library(args.file):
        return check_library(args)
    args.file = args.file[0]
    from srt_tui.cli.sweep import dry_run_members, file_members
    from srt_tui.core.api import prepare
    from srt_tui.core.jobdir.write import job_files, write_atomic_dir
    from srt_tui.core.text.dryrun import describe

    members = file_members(args.file)
    if members is not None:  # a sweep or override file without a selector: its expansion
        return dry_run_members(args, members)
    prep = prepare(args.file, args.profile, args.topology)
    warn_plan(prep, host_programs=True)  # `apply` refuses the missing programs on this machine
    if args.output:
        target = _output_dir(Path(args.output))
        try:
            write_atomic_dir(target, job_files(prep.job, prep.plan, prep.script), replace=True)
        except OSError as exc:
            raise _output_error(target, f"cannot write it: {exc.strerror or exc}") from None
    if args.json:
        sys.stdout.write(prep.plan.to_json_text())
    else:
        sys.stdout.write(describe(prep, with_script=not args.no_script))
        if args.output:
            print(f"\nwrote {target}/sbatch.sh, plan.json, recipe.yaml, profile.yaml")
    return 0


def _cmd_preflight(args: argparse.Namespace) -> int:
    """srtctl's `preflight`: every job of the file, its model and container paths checked from here; a directory
    (or several `-f`) as `dry-run` checks one, a line per job and a tally (srtctl refuses a directory)."""
    from srt_tui.cli.library_check import preflight_library, wants_library

    if wants_library(args.file):
        return preflight_library(args)
    args.file = args.file[0]
    from srt_tui.core.api import choose_profile
    from srt_tui.core.errors import SrtError
    from srt_tui.core.plan.paths_preflight import check_paths
    from srt_tui.core.plan.resolve import resolve
    from srt_tui.core.spec.recipe import file_recipes, load_recipe
    from srt_tui.slurm.preflight import check_rank, failing_line, path_check

    path = Path(args.file)
    if path.is_file():  # every job of the file, read and expanded once (an override file's base aside)
        jobs = file_recipes(path)
        jobs = [j for j in jobs if j.selector != "base"] if len(jobs) > 1 else jobs
        loaded = []
        for job in jobs:
            if job.recipe is None:
                raise job.error or SrtError()
            loaded.append((job.recipe, job.source))
    else:
        loaded = [load_recipe(args.file)]
    failed = 0
    for recipe, source in loaded:
        try:
            checks = check_paths(resolve(choose_profile(recipe, args.profile), recipe, source))
        except SrtError as exc:
            failed += 1
            print(f"✗ {recipe.name}\n  - {exc}")
            continue
        bad = [c for c in checks if not c.ok]
        failed += bool(bad)
        print(f"{'✗' if bad else '✓'} {recipe.name}")
        # worst first, several counted and named on top: the order and line of the Submit step and `apply`
        shown = sorted(checks if args.verbose else bad, key=lambda c: check_rank(path_check(c)))
        if len(shown) > 1 and (line := failing_line([path_check(c) for c in shown])):
            print(f"  {line}")
        for c in shown:
            print(f"  - {c.field} [{c.code}]: {c.message}")
    return 1 if failed else 0


def _output_error(target: Path, message: str) -> Exception:
    from srt_tui.core.errors import Problem, SrtError

    hint = "name a new or empty directory on a writable file system with free space"
    return SrtError([Problem(field="-o/--output", message=f"{target}: {message}", hint=hint)])


def _output_dir(target: Path) -> Path:
    """`dry-run -o`'s directory, refused when writing it would replace something that is not a dry-run."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise _output_error(target, "exists and is not a directory")
    blocking = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise _output_error(target, f"{blocking} is not a directory")
    if target.is_dir() and any(target.iterdir()) and not (target / "plan.json").is_file():
        raise _output_error(target, "is a directory that holds no earlier dry-run (no plan.json): not replacing it")
    return target


def _cmd_profiles(args: argparse.Namespace) -> int:
    from srt_tui.core.spec.profile import list_profile_files, load_profile
    from srt_tui.core.spec.yamlio import dump_yaml

    if args.action == "show":
        if not args.name:
            print("srt-tui: error: `profiles show` needs a profile name or path", file=sys.stderr)
            return 2
        loaded = load_profile(args.name, named_by="profiles show")  # a positional: not `--profile`
        print(f"# {loaded.name} ({loaded.source}: {loaded.path})")
        sys.stdout.write(dump_yaml(loaded.profile.model_dump(mode="json")))
        return 0
    rows = []
    for pf in list_profile_files():
        if pf.profile is None:
            err = pf.error.problems[0].render() if pf.error and pf.error.problems else "invalid"
            rows.append((pf.name, pf.source, "INVALID", "", "", "", err))
            continue
        p = pf.profile
        gpus = (
            "--gpus-per-node"
            if p.use_gpus_per_node_directive
            else "gres " + str((p.default_sbatch_directives or {}).get("gres", "-"))
        )
        rows.append(
            (
                pf.name,
                pf.source,
                str(p.gpus_per_node or "-"),
                p.visible_devices_env,
                gpus,
                p.container_runtime,
                p.description or "",
            )
        )
    if args.json:
        print(
            json.dumps(
                [
                    dict(
                        zip(
                            (
                                "name",
                                "source",
                                "gpus_per_node",
                                "visible_devices_env",
                                "gpu_request",
                                "container_runtime",
                                "description",
                            ),
                            r,
                        )
                    )
                    for r in rows
                ],
                indent=2,
            )
        )
        return 0
    from srt_tui.core.text.views import fixed_table

    print(
        fixed_table(
            ("NAME", "SOURCE", "GPUS", "MASK VARIABLE", "GPU REQUEST", "RUNTIME", "DESCRIPTION"),
            [r[:6] + (r[6][:60],) for r in rows],
        )
    )
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from srt_tui.core.spec.profile import Profile
    from srt_tui.core.spec.recipe import Recipe

    schema = (Profile if args.kind == "profile" else Recipe).model_json_schema(by_alias=True)
    print(json.dumps(schema, indent=2))
    return 0


def _start_reader(args: argparse.Namespace) -> None:
    """The TUI's recipe reader process, started first: the library (and the profile list, when the wizard opens on
    it) is read on another core while this process loads the Slurm layer and Textual, and paints."""
    from srt_tui.tui.launch.first_step import profile_given
    from srt_tui.tui.launch.recipe_reader import start_early

    start_early(profiles=not profile_given(args.profile))


def _cmd_tui(args: argparse.Namespace) -> int:
    from srt_tui.tui.app import run_app

    return int(run_app(args))


_CORE_COMMANDS = frozenset({"dry-run", "preflight", "profiles", "schema", "results"})


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand word of `argv` (skipping top-level options), or None."""
    it = iter(argv)
    for tok in it:
        if tok in ("-p", "--profile"):
            next(it, None)
        elif not tok.startswith("-"):
            return tok
    return None


def _opens_tui(argv: Sequence[str]) -> bool:
    """Whether `argv` starts the TUI (no command, no `--help`, which lists the commands)."""
    return _command_of(argv) is None and not any(a in ("-h", "--help") for a in argv)


def _unknown_command(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str:
    """The message for a subcommand srt-tui does not have, with the nearest one (`stauts`: `status`); else ""."""
    import difflib

    word = _command_of(argv)
    commands = [c for a in parser._actions if isinstance(a, argparse._SubParsersAction) for c in a.choices]
    if word is None or word in commands:
        return ""
    near = difflib.get_close_matches(word, commands, n=1)
    hint = f"did you mean `{near[0]}`? " if near else ""
    return f"unknown command `{word}`: {hint}(the commands: {', '.join(commands)})"


def _unknown_options(parser: argparse.ArgumentParser, argv: Sequence[str], extra: list[str]) -> str:
    """What argparse would not take, with the nearest option of that command (`--jsn`: `--json`)."""
    import difflib

    command = _command_of(argv)
    options = [o for a in parser._actions for o in a.option_strings]  # noqa: SLF001 (argparse has no public list)
    for action in parser._actions:  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:  # noqa: SLF001
            options = [o for a in action.choices[command]._actions for o in a.option_strings]  # noqa: SLF001
    words = " ".join(extra)
    near = difflib.get_close_matches(extra[0].split("=", 1)[0], options, n=1) if extra[0].startswith("-") else []
    hint = f": did you mean `{near[0]}`?" if near else f" (see `srt-tui {command or ''} --help`)".replace("  ", " ")
    return f"unrecognized arguments: {words}{hint}"


class CliParser(argparse.ArgumentParser):
    """argparse with srt-tui's error line (its subcommands' parsers are of this class too): one `srt-tui:
    error:` line instead of the usage dump, with the nearest choice of a mistyped value (`--for redy`:
    `ready`), else the command whose `--help` says more."""

    def error(self, message: str) -> NoReturn:
        import difflib
        import re

        hint = f" (see `{self.prog} --help`)"
        wrong = re.search(r"invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if wrong:
            choices = [c.strip().strip("'") for c in wrong.group(2).split(",")]
            near = difflib.get_close_matches(wrong.group(1), choices, n=1)
            hint = f": did you mean `{near[0]}`?" if near else ""
        print(f"srt-tui: error: {message}{hint}", file=sys.stderr)
        raise SystemExit(2)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of every subcommand (job commands only when `argv` may need them)."""
    parser = CliParser(
        prog="srt-tui",
        description=(
            "Plan, launch and watch disaggregated LLM serving on Slurm (NVIDIA and AMD). "
            "Without a command, opens the TUI."
        ),
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version="srt-tui 0.1.0")
    parser.add_argument("-p", "--profile", type=path_arg, help="profile name, path, or default discovery")
    parser.add_argument("--read-only", action="store_true", help="TUI: hide every mutating action")
    if argv is not None and _opens_tui(argv):
        return parser  # the TUI takes only the options above: its start does not wait for every command's parser
    sub = parser.add_subparsers(dest="command")

    def recipe_args(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "-f", "--file", required=True, type=path_arg, help="recipe YAML (file.yaml or file.yaml:variant)"
        )
        p.add_argument("-p", "--profile", default=argparse.SUPPRESS, type=path_arg, help="profile name or path")
        p.add_argument("-t", "--topology", help="override worker counts: 1P1D, 2P1D, 1P2D, agg2 …")

    d = sub.add_parser(
        "dry-run",
        help="render the plan and launch script without submitting; -f DIR (or several -f) checks every job",
    )
    d.add_argument(
        "-f", "--file", required=True, action="append", type=path_arg,
        help="recipe YAML (file.yaml or file.yaml:variant); a directory, or -f again, checks every job of them",
    )  # fmt: skip
    d.add_argument("-p", "--profile", default=argparse.SUPPRESS, type=path_arg, help="profile name or path")
    d.add_argument("-t", "--topology", help="override worker counts: 1P1D, 2P1D, 1P2D, agg2 …")
    d.add_argument("-o", "--output", type=path_arg, help="write sbatch.sh, plan.json, recipe.yaml, profile.yaml here")
    d.add_argument("--json", action="store_true", help="print plan.json")
    d.add_argument("--no-script", action="store_true", help="omit the script from the text output")
    d.set_defaults(func=_cmd_dry_run)

    pf = sub.add_parser("preflight", help="check each job's model and container paths from this node")
    pf.add_argument(
        "-f", "--file", required=True, action="append", type=path_arg,
        help="recipe YAML (every variant, or file.yaml:variant); a directory, or -f again, checks every job of them",
    )  # fmt: skip
    pf.add_argument("-p", "--profile", default=argparse.SUPPRESS, type=path_arg, help="profile name or path")
    pf.add_argument("-v", "--verbose", action="store_true", help="show the checks that passed too")
    pf.set_defaults(func=_cmd_preflight)

    pr = sub.add_parser("profiles", help="list or show cluster profiles")
    pr.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    pr.add_argument("name", nargs="?")
    pr.add_argument("--json", action="store_true")
    pr.set_defaults(func=_cmd_profiles)

    sc = sub.add_parser("schema", help="JSON Schema of profiles or recipes, for editors")
    sc.add_argument("kind", choices=["profile", "recipe"])
    sc.set_defaults(func=_cmd_schema)

    # the job commands pull in asyncio and the Slurm/monitor layers; core commands start faster without them
    if argv is None or _command_of(argv) not in _CORE_COMMANDS:
        from srt_tui.cli.jobs import add_job_commands

        add_job_commands(sub, recipe_args)
        from srt_tui.cli.alljobs import add_alljobs_command

        add_alljobs_command(sub)
        from srt_tui.cli.smoke import add_bench_command

        add_bench_command(sub)
        from srt_tui.cli.events import add_events_command

        add_events_command(sub)
        from srt_tui.cli.shell import add_shell_command

        add_shell_command(sub)
        from srt_tui.cli.setup import add_setup_commands

        add_setup_commands(sub)
    from srt_tui.cli.results import add_results_command  # headless: reads files only, so it starts fast too

    add_results_command(sub)
    return parser


EXIT_CODES = """\
exit codes:
  0    done
  1    not done, by design: a prompt declined, `apply` without a terminal and without -y, a job that
       ended before it was ready or failed after it (`wait`; one that was ready, then completed, is 0),
       nothing cancelled (`cancel`: Slurm does not know the id, or it is another job's; one that had
       already ended is 0, as with scancel), a job with no benchmark results yet (`results`: the others
       are still printed), a running job not hidden (`jobs --hide`), a job that was not hidden
       (`jobs --unhide`), a smoke test with failed requests or a job that is not serving (`bench`), a
       Slurm job that has ended (`shell`: no node to open a shell on), a model or container path not
       found (`preflight`)
  2    bad input: usage, recipe, profile, topology, or a path that cannot be read or written; the
       message names the file, line or field and the fix; the TUI (no command) with no terminal; a JOB
       that names no job (`status`, `events`, `results`, `cancel`, `jobs --hide/--unhide` act on the
       others all the same)
  3    Slurm failed or is unreachable; the message says what Slurm said
  4    the system refused an unexpected file operation (permissions, a full or read-only file system)
  70   internal error (a bug in srt-tui: please report it; SRT_TUI_DEBUG=1 shows the traceback)
  124  `wait` timed out
  130  interrupted: Ctrl-C, in any command (`wait` and `status --watch` too), and SIGTERM/SIGHUP while
       `apply` submits, or while `setup --probe` and `doctor` probe (the held job, or the probe job, is
       cancelled)
  141  the reader of stdout closed the pipe early, as `| head` does (silent, as SIGPIPE leaves other tools);
       also the reader of `setup --probe`'s and `doctor`'s progress on stderr (`2>&1 | head`): the probe
       job is cancelled, as on Ctrl-C
"""


def _stdout_to_devnull() -> None:
    """After a closed pipe, point stdout at /dev/null so the exit-time flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a descriptor (an in-process caller)
        pass


def _say(line: str) -> None:
    """One line on stderr; none when stderr is gone (a dropped SSH session, `2>&1 | head`): the exit code still
    says what happened."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def _error(exc: BaseException) -> int:
    """One clear line (plus Slurm's own lines) for a failure, and its documented exit code."""
    from srt_tui.core.errors import Problem, SrtError
    from srt_tui.slurm.errors import SlurmError

    if isinstance(exc, BrokenPipeError):
        _stdout_to_devnull()
        return 141  # 128 + SIGPIPE: what `cat` or `git log` leave when `| head` stops reading
    if isinstance(exc, SrtError):
        for problem in exc.problems or [Problem(field="", message="unknown error")]:
            _say(f"srt-tui: error: {printable(problem.render())}")
        return int(getattr(exc, "exit_code", 2))
    if isinstance(exc, SlurmError):
        lines = str(exc).strip().splitlines() or ["Slurm failed without a message"]
        _say(f"srt-tui: error: slurm: {lines[0]}")
        for line in lines[1:]:
            _say(f"  {line}")
        return 3
    if isinstance(exc, KeyboardInterrupt):
        _say(f"srt-tui: interrupted{': ' + str(exc) if str(exc) else ''}")
        return 130
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        _say(f"srt-tui: error: {where}{exc.strerror or exc}")
        return 4
    if os.environ.get("SRT_TUI_DEBUG"):
        raise exc
    _say(f"srt-tui: internal error: {type(exc).__name__}: {exc} (a bug: SRT_TUI_DEBUG=1 shows the traceback)")
    return 70


def _settle_interrupted(transport: str) -> None:
    """Every command first cancels the held Slurm jobs of an `apply` that was killed between `sbatch --hold`
    and release (a directory listing when there are none), so no held job is left untracked."""
    from srt_tui.core.errors import SrtError
    from srt_tui.slurm.orphans import settle

    try:
        notes = settle(transport=transport)
    except (SrtError, OSError) as exc:  # an unsafe state directory is said by the command itself
        notes = [] if isinstance(exc, SrtError) else [f"cannot check for interrupted submissions: {exc}"]
    for note in notes:
        print(f"srt-tui: warning: {printable(note)}", file=sys.stderr)


def _find_recipes(args: argparse.Namespace) -> None:
    """Every command's `-f` (dry-run, preflight, apply, doctor) as a path, found the one way: a path, a shipped
    recipe's path under `recipes/`, or a recipe's name, its `:selector` kept."""
    given = getattr(args, "file", None)
    if not given:
        return
    from srt_tui.core.spec.library import find_recipe

    args.file = [find_recipe(f) for f in given] if isinstance(given, list) else find_recipe(given)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run a subcommand; every failure is one clear line and an exit code from EXIT_CODES."""
    argv = sys.argv[1:] if argv is None else argv
    if _command_of(argv) in _CORE_COMMANDS or _opens_tui(argv):
        # srt-tui uses no pydantic plugins; skipping their discovery (a scan of every installed
        # distribution's entry points) keeps the headless commands' start-up short, and the TUI's recipe reader
        # (which inherits it) reaches its first rows sooner
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        parser = build_parser(argv)
        unknown = _unknown_command(parser, argv)
        if unknown:
            print(f"srt-tui: error: {unknown}", file=sys.stderr)
            return 2
        args, extra = parser.parse_known_args(argv)
        if extra:
            print(f"srt-tui: error: {_unknown_options(parser, argv, extra)}", file=sys.stderr)
            return 2
        func: Callable[[argparse.Namespace], int] = getattr(args, "func", _cmd_tui)
        _find_recipes(args)
        if func is _cmd_tui:
            from srt_tui.cli.terminal import no_terminal_message, not_terminals

            missing = not_terminals()
            if missing:  # before the reader process and Textual: nothing starts that cannot be seen or answered
                print(f"srt-tui: error: {no_terminal_message(missing)}", file=sys.stderr)
                return 2
            gc.disable()  # until the TUI's first frame is drawn (`run_app`): the start makes much and frees little
            _start_reader(args)  # its first rows are on the first screen's path: before the Slurm layer's import
        _settle_interrupted(getattr(args, "transport", "auto") or "auto")
        rc = func(args)
        sys.stdout.flush()  # a closed pipe shows up here, inside the handler, not at interpreter exit
        return rc
    except (Exception, KeyboardInterrupt) as exc:
        return _error(exc)


if __name__ == "__main__":
    raise SystemExit(main())
