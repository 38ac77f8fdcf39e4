"""`srt-tui` command line: the headless face of the core (the TUI is the other one).

Each subcommand imports only what it needs, so `srt-tui dry-run` starts fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def _cmd_dry_run(args: argparse.Namespace) -> int:
    from .core.api import prepare
    from .core.dryrun_text import describe
    from .core.jobdir import job_files, write_atomic_dir

    prep = prepare(args.file, args.profile, args.topology)
    if args.output:
        target = write_atomic_dir(Path(args.output), job_files(prep.job, prep.plan, prep.script))
    if args.json:
        sys.stdout.write(prep.plan.to_json_text())
    else:
        sys.stdout.write(describe(prep, with_script=not args.no_script))
        if args.output:
            print(f"\nwrote {target}/sbatch.sh, plan.json, recipe.yaml, profile.yaml")
    return 0


def _cmd_preflight(args: argparse.Namespace) -> int:
    """srtctl's `preflight`: every job of the file, its model and container paths checked from here."""
    from .core.api import choose_profile
    from .core.errors import SrtError
    from .core.preflight import check_paths
    from .core.recipe import list_variants, load_recipe
    from .core.resolve import resolve

    path = Path(args.file)
    specs = [args.file]
    if path.is_file():
        specs = [f"{path}:{v}" for v in list_variants(path) if v != "base"] or specs
    failed = 0
    for spec in specs:
        recipe, source = load_recipe(spec)
        try:
            checks = check_paths(resolve(choose_profile(recipe, args.profile), recipe, source))
        except SrtError as exc:
            failed += 1
            print(f"✗ {recipe.name}\n  - {exc}")
            continue
        bad = [c for c in checks if not c.ok]
        failed += bool(bad)
        print(f"{'✗' if bad else '✓'} {recipe.name}")
        for c in checks if args.verbose else bad:
            print(f"  - {c.field} [{c.code}]: {c.message}")
    return 1 if failed else 0


def _cmd_profiles(args: argparse.Namespace) -> int:
    from .core.profile import list_profile_files, load_profile
    from .core.yamlio import dump_yaml

    if args.action == "show":
        if not args.name:
            print("srt-tui: error: `profiles show` needs a profile name or path", file=sys.stderr)
            return 2
        loaded = load_profile(args.name)
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
    from .core.views import fixed_table

    print(
        fixed_table(
            ("NAME", "SOURCE", "GPUS", "MASK VARIABLE", "GPU REQUEST", "RUNTIME", "DESCRIPTION"),
            [r[:6] + (r[6][:60],) for r in rows],
        )
    )
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from .core.profile import Profile
    from .core.recipe import Recipe

    schema = (Profile if args.kind == "profile" else Recipe).model_json_schema(by_alias=True)
    print(json.dumps(schema, indent=2))
    return 0


def _cmd_tui(args: argparse.Namespace) -> int:
    from .tui.app import run_app

    return int(run_app(args))


_CORE_COMMANDS = frozenset({"dry-run", "preflight", "profiles", "schema"})


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand word of `argv` (skipping top-level options), or None."""
    it = iter(argv)
    for tok in it:
        if tok in ("-p", "--profile"):
            next(it, None)
        elif not tok.startswith("-"):
            return tok
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of every subcommand (job commands only when `argv` may need them)."""
    parser = argparse.ArgumentParser(
        prog="srt-tui",
        description=(
            "Plan, launch and watch disaggregated LLM serving on Slurm (NVIDIA and AMD). "
            "Without a command, opens the TUI."
        ),
    )
    parser.add_argument("--version", action="version", version="srt-tui 0.1.0")
    parser.add_argument("-p", "--profile", help="profile name, path, or default discovery")
    parser.add_argument("--read-only", action="store_true", help="TUI: hide every mutating action")
    sub = parser.add_subparsers(dest="command")

    def recipe_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("-f", "--file", required=True, help="recipe YAML (file.yaml or file.yaml:variant)")
        p.add_argument("-p", "--profile", default=argparse.SUPPRESS, help="profile name or path")
        p.add_argument("-t", "--topology", help="override worker counts: 1P1D, 2P1D, 1P2D, agg2 …")

    d = sub.add_parser("dry-run", help="render the plan and launch script without submitting")
    recipe_args(d)
    d.add_argument("-o", "--output", help="write sbatch.sh, plan.json, recipe.yaml, profile.yaml here")
    d.add_argument("--json", action="store_true", help="print plan.json")
    d.add_argument("--no-script", action="store_true", help="omit the script from the text output")
    d.set_defaults(func=_cmd_dry_run)

    pf = sub.add_parser("preflight", help="check each job's model and container paths from this node")
    pf.add_argument("-f", "--file", required=True, help="recipe YAML (every variant, or file.yaml:variant)")
    pf.add_argument("-p", "--profile", default=argparse.SUPPRESS, help="profile name or path")
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
        from .cli_jobs import add_job_commands

        add_job_commands(sub, recipe_args)
        from .cli_setup import add_setup_commands

        add_setup_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run a subcommand; bad input exits 2 and Slurm failures 3, each with a clear message."""
    from .core.errors import SrtError

    argv = sys.argv[1:] if argv is None else argv
    if _command_of(argv) in _CORE_COMMANDS:
        # srt-tui uses no pydantic plugins; skipping their discovery (a scan of every installed
        # distribution's entry points) keeps the headless commands' start-up short
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = getattr(args, "func", _cmd_tui)
    try:
        return func(args)
    except SrtError as exc:
        for line in str(exc).splitlines() or ["unknown error"]:
            print(f"srt-tui: error: {line}", file=sys.stderr)
        return 2
    except Exception as exc:
        from .slurm.errors import SlurmError

        if not isinstance(exc, SlurmError):
            raise
        lines = str(exc).strip().splitlines() or ["Slurm failed without a message"]
        print(f"srt-tui: error: slurm: {lines[0]}", file=sys.stderr)
        for line in lines[1:]:
            print(f"  {line}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
