"""`dry-run -f DIR` (and several `-f`): every job of every recipe file checked in one process, as srtctl's
`dry-run -f DIR` does, one line each (ok, or refused with the first reason) and a tally; `--json` for tools.
`preflight -f DIR` walks the same jobs the same way and checks each one's model and container paths instead.

Each file is read and expanded once, each profile loaded once; a job is planned and rendered exactly as
`dry-run -f file.yaml:job` would, so "ok" means that command would succeed.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from srt_tui.core.api import ProfileOrigin
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.core.spec.recipe import Recipe, RecipeSource


@dataclass(frozen=True)
class ProfileUsed:
    """The profile a job was checked against, and what chose it (the tally depends on it)."""

    name: str
    path: str | None
    origin: ProfileOrigin

    def why(self) -> str:
        """`-p nvidia-h100: /…/nvidia-h100.yaml`, `srtslurm.yaml found at /…`, `the recipe's profiles:`, …"""
        where = self.path or "embedded"
        return {
            "-p": f"-p {self.name}: {where}",
            "SRTSLURM_CONFIG": f"$SRTSLURM_CONFIG: {where}",
            "srtslurm.yaml": f"srtslurm.yaml found at {where}",
            "recipe": "the recipe's profiles:",
            "default": "the default: no -p and no srtslurm.yaml found in ./, ../ or ../../",
        }[self.origin]

    def same(self, other: ProfileUsed | None) -> bool:
        """The same profile file (what chose it aside)."""
        return other is not None and (self.name, self.path) == (other.name, other.path)

    def to_json(self) -> dict[str, str | None]:
        return {"name": self.name, "path": self.path, "from": self.origin}


@dataclass(frozen=True)
class Checked:
    """One job's verdict: where it is (`file` or `file:selector`), its name, its plan's shape or its problems,
    and the profile it was checked against (None: the file could not be read that far)."""

    spec: str
    name: str
    problems: tuple[str, ...]
    topology: str = ""
    nodes: int = 0
    profile: ProfileUsed | None = None
    #: preflight: each path check as `field [code]: message`, and those that failed
    checks: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    #: preflight: the codes of the checks that passed (`model-available`, `container-registry`, …)
    found: str = ""

    @property
    def ok(self) -> bool:
        """Would `dry-run -f spec` (or `preflight -f spec`) succeed?"""
        return not self.problems and not self.missing


class Judge(Protocol):
    """What is checked of one loadable job (its plan for `dry-run`, its paths for `preflight`)."""

    def __call__(
        self, spec: str, recipe: Recipe, profile: LoadedProfile, source: RecipeSource, used: ProfileUsed
    ) -> Checked: ...


def planned(spec: str, recipe: Recipe, profile: LoadedProfile, source: RecipeSource, used: ProfileUsed) -> Checked:
    """`dry-run`'s verdict: planned and rendered as `dry-run -f spec` would (SrtError when refused)."""
    from srt_tui.core.api import prepare_job

    prep = prepare_job(recipe, profile, source, None)
    return Checked(spec, prep.plan.name, (), prep.plan.topology, prep.plan.nodes, used)


def paths_checked(
    spec: str, recipe: Recipe, profile: LoadedProfile, source: RecipeSource, used: ProfileUsed
) -> Checked:
    """`preflight`'s verdict: the resolved job's model and container paths, as the login node sees them."""
    from srt_tui.core.plan.paths_preflight import check_paths
    from srt_tui.core.plan.resolve import resolve

    checks = check_paths(resolve(profile, recipe, source))
    lines = tuple(f"{c.field} [{c.code}]: {c.message}" for c in checks)
    missing = tuple(line for c, line in zip(checks, lines) if not c.ok)
    found = ", ".join(c.code for c in checks if c.ok)
    return Checked(spec, recipe.name, (), profile=used, checks=lines, missing=missing, found=found)


def wants_library(files: list[str]) -> bool:
    """Several `-f`, or one naming a directory: check them all rather than show one plan."""
    return len(files) > 1 or Path(files[0]).is_dir()


def recipe_files(files: list[str]) -> list[Path]:
    """Each `-f` file as given, and every `*.yaml`/`*.yml` under each `-f` directory (sorted, hidden folders
    skipped); in order, once. A directory with none is an error: it was meant to hold recipes."""
    from srt_tui.core.errors import Problem, SrtError

    out: list[Path] = []
    seen: set[Path] = set()
    for given in files:
        path = Path(given)
        if not path.is_dir():
            found = [path]
        else:
            found = sorted(p for p in path.rglob("*.y*ml") if p.is_file() and not _hidden(p.relative_to(path)))
            if not found:
                why = "is a directory with no recipe files (*.yaml, *.yml) under it"
                fix = "give a recipe file or the folder that holds them"
                raise SrtError([Problem("-f", why, file=given, hint=fix)])
        for p in found:
            if p not in seen:
                seen.add(p)
                out.append(p)
    return out


def _hidden(rel: Path) -> bool:
    return any(part.startswith(".") for part in rel.parts)


class _Profiles:
    """Profiles by what chose them (`-p`, an srtslurm.yaml, or a recipe's first `profiles:` entry), loaded once.
    The run's own (`-p`, srtslurm.yaml, else the default) is loaded first: one that cannot be is one error."""

    def __init__(self, spec: str | None) -> None:
        from srt_tui.core.api import profile_choice

        self.spec = spec
        loaded, origin = profile_choice(None, spec)
        self.top = _used(loaded, origin)
        self._loaded: dict[str | None, tuple[LoadedProfile, ProfileUsed]] = {None: (loaded, self.top)}

    @property
    def fixed(self) -> bool:
        """Every job is checked against the run's profile (a recipe's `profiles:` does not choose)."""
        return self.top.origin not in ("recipe", "default")

    def for_recipe(self, recipe: Recipe) -> tuple[LoadedProfile, ProfileUsed]:
        """The job's profile and what chose it (SrtError when the recipe names one that cannot be loaded)."""
        from srt_tui.core.api import profile_choice

        key = None if self.fixed or not recipe.profiles else recipe.profiles[0]
        if key not in self._loaded:
            loaded, origin = profile_choice(recipe, self.spec)
            self._loaded[key] = (loaded, _used(loaded, origin))
        return self._loaded[key]

    def header(self) -> str:
        """The run's first line: which profile, and where it came from."""
        line = f"profile: {self.top.name} ({self.top.why()})"
        if self.fixed:
            return line + ", every job"
        return line + "; a recipe that names `profiles:` is checked against its first, said on its line"


def _used(loaded: LoadedProfile, origin: ProfileOrigin) -> ProfileUsed:
    return ProfileUsed(loaded.name, str(loaded.path) if loaded.path is not None else None, origin)


def check_file(path: Path, profiles: _Profiles, topology: str | None, judge: Judge | None = None) -> list[Checked]:
    """Every job of one file (an override file's `base` aside, as `apply` submits it), each planned (`dry-run`)
    or given to ``judge``."""
    from srt_tui.core.api import prepare_job
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.recipe import file_recipes

    try:
        jobs = file_recipes(path)
    except SrtError as exc:
        return [Checked(str(path), path.stem, tuple(p.render() for p in exc.problems) or ("invalid",))]
    if len(jobs) > 1:
        jobs = [j for j in jobs if j.selector != "base"]
    out: list[Checked] = []
    for job in jobs:
        spec = str(path) if job.selector is None else f"{path}:{job.selector}"
        if job.recipe is None:
            problems = job.error.problems if job.error is not None else []
            out.append(Checked(spec, path.stem, tuple(p.render() for p in problems) or ("invalid",)))
            continue
        used: ProfileUsed | None = None
        try:
            loaded, used = profiles.for_recipe(job.recipe)
            if judge is not None:
                out.append(judge(spec, job.recipe, loaded, job.source, used))
                continue
            prep = prepare_job(job.recipe, loaded, job.source, topology)
        except SrtError as exc:
            why = tuple(p.render() for p in exc.problems) or ("invalid",)
            if used is None and job.recipe.profiles:  # the profile the recipe names could not be loaded
                used = ProfileUsed(job.recipe.profiles[0], None, "recipe")
            out.append(Checked(spec, job.recipe.name, why, profile=used))
            continue
        out.append(Checked(spec, prep.plan.name, (), prep.plan.topology, prep.plan.nodes, used))
    return out


def _line(c: Checked, options: str = "", run: ProfileUsed | None = None, command: str = "dry-run") -> str:
    """`ok       file[:job]  name: 2P1D on 3 node(s)` or `refused  file[:job]  line 12: field: why (fix: …)`; a job
    refused for several reasons ends with how many more and the command that shows them all (its ``options``:
    the `-p`/`-t` this run was given); a job checked against another profile than the ``run``'s says which.
    `preflight`'s: `ok       file[:job]  name: model-available, container-registry`, or `missing  file[:job]  name:
    model.path [model-not-available]: …`."""
    from srt_tui.cli.printable import printable

    other = f" · profile {c.profile.name} ({c.profile.why()})" if c.profile and not c.profile.same(run) else ""
    again = f"srt-tui {command} -f {shlex.quote(c.spec)}{options}"
    if c.ok:
        shape = c.found if command == "preflight" else f"{c.topology} on {c.nodes} node(s)"
        return printable(f"ok       {c.spec}  {c.name}: {shape}{other}")
    if not c.problems:  # preflight: a path the job needs is not there
        more = f" (+{len(c.missing) - 1} more: {again})" if len(c.missing) > 1 else ""
        return printable(f"missing  {c.spec}  {c.name}: {c.missing[0]}{more}{other}")
    first = c.problems[0]
    file = c.spec.split(":", 1)[0] if not Path(c.spec).exists() else c.spec
    if first.startswith(file + ":"):  # the file is on the line already: its line number is enough
        first = first[len(file) + 1 :].lstrip()
        first = f"line {first}" if first[:1].isdigit() else first
    more = f" (+{len(c.problems) - 1} more: {again})" if len(c.problems) > 1 else ""
    return printable(f"refused  {c.spec}  {first}{more}{other}")


def check_library(args: argparse.Namespace) -> int:
    """Check every job, print the profile, a line each and the tally (or one JSON document); 2 when any is
    refused."""
    from srt_tui.cli.printable import printable
    from srt_tui.core.errors import Problem, SrtError

    if args.output:
        raise SrtError([Problem("-o/--output", "writes the files of one job, not of a library",
                                hint="drop -o, or give one file: -f file.yaml[:job] -o DIR")])  # fmt: skip
    files = recipe_files(args.file)
    _refuse_missing(files)
    profiles = _Profiles(args.profile)
    given = (("-p", args.profile), ("-t", args.topology))
    options = "".join(f" {flag} {shlex.quote(value)}" for flag, value in given if value)
    results: list[Checked] = []
    if not args.json:
        print(printable(profiles.header()))
    for path in files:
        checked = check_file(path, profiles, args.topology)
        results.extend(checked)
        if not args.json:
            sys.stdout.write("".join(_line(c, options, profiles.top) + "\n" for c in checked))
    refused = sum(1 for c in results if not c.ok)
    if args.json:
        doc = {
            "files": len(files),
            "jobs": len(results),
            "ok": len(results) - refused,
            "refused": refused,
            "profile": profiles.top.to_json(),
            "results": [
                {
                    "spec": c.spec,
                    "name": c.name,
                    "ok": c.ok,
                    "problems": list(c.problems),
                    "topology": c.topology or None,
                    "nodes": c.nodes or None,
                    "profile": c.profile.to_json() if c.profile else None,
                }  # fmt: skip
                for c in results
            ],
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        print(f"\n{len(results)} jobs in {len(files)} files: {len(results) - refused} ok, {refused} refused")
    return 2 if refused else 0


def preflight_library(args: argparse.Namespace) -> int:
    """`preflight -f DIR` (or several `-f`): every job's model and container paths, one line each and a tally, as
    `dry-run -f DIR` prints its checks; 2 when a job cannot be read or resolved, else 1 when a path is missing."""
    from srt_tui.cli.printable import printable

    files = recipe_files(args.file)
    _refuse_missing(files)
    profiles = _Profiles(args.profile)
    options = f" -p {shlex.quote(args.profile)}" if args.profile else ""
    print(printable(profiles.header()))
    results: list[Checked] = []
    for path in files:
        for c in check_file(path, profiles, None, paths_checked):
            results.append(c)
            print(_line(c, options, profiles.top, "preflight"))
            for line in c.checks if args.verbose else ():
                print(printable(f"           - {line}"))
    refused = sum(1 for c in results if c.problems)
    missing = sum(1 for c in results if c.missing)
    ok = len(results) - refused - missing
    print(f"\n{len(results)} jobs in {len(files)} files: {ok} ok, {missing} missing paths, {refused} refused")
    return 2 if refused else 1 if missing else 0


def _refuse_missing(files: list[Path]) -> None:
    """A `-f` that names no file: one error naming it, before anything is checked."""
    from srt_tui.core.errors import Problem, SrtError

    missing = [f for f in files if not f.exists()]
    if missing:
        raise SrtError([Problem("-f", "no such recipe file or directory", file=str(missing[0]), hint="check the path")])
