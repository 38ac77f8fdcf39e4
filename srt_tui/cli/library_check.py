"""`dry-run -f DIR` (and several `-f`): every job of every recipe file checked in one process, as srtctl's
`dry-run -f DIR` does, one line each (ok, or refused with the first reason) and a tally; `--json` for tools.

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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.core.spec.recipe import Recipe


@dataclass(frozen=True)
class Checked:
    """One job's verdict: where it is (`file` or `file:selector`), its name, its plan's shape or its problems."""

    spec: str
    name: str
    problems: tuple[str, ...]
    topology: str = ""
    nodes: int = 0

    @property
    def ok(self) -> bool:
        """Would `dry-run -f spec` succeed?"""
        return not self.problems


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
    """Profiles by what chose them (`-p`, an srtslurm.yaml, or a recipe's first `profiles:` entry), loaded once."""

    def __init__(self, spec: str | None) -> None:
        self.spec = spec
        self._loaded: dict[str | None, LoadedProfile] = {}

    def for_recipe(self, recipe: Recipe) -> LoadedProfile:
        from srt_tui.core.api import choose_profile

        key = self.spec if self.spec is not None else (recipe.profiles[0] if recipe.profiles else None)
        if key not in self._loaded:
            self._loaded[key] = choose_profile(recipe, self.spec)
        return self._loaded[key]


def check_file(path: Path, profiles: _Profiles, topology: str | None) -> list[Checked]:
    """Every job of one file (an override file's `base` aside, as `apply` submits it)."""
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
        try:
            prep = prepare_job(job.recipe, profiles.for_recipe(job.recipe), job.source, topology)
        except SrtError as exc:
            out.append(Checked(spec, job.recipe.name, tuple(p.render() for p in exc.problems) or ("invalid",)))
            continue
        out.append(Checked(spec, prep.plan.name, (), prep.plan.topology, prep.plan.nodes))
    return out


def _line(c: Checked, options: str = "") -> str:
    """`ok       file[:job]  name: 2P1D on 3 node(s)` or `refused  file[:job]  line 12: field: why (fix: …)`; a job
    refused for several reasons ends with how many more and the command that shows them all (its ``options``:
    the `-p`/`-t` this run was given)."""
    from srt_tui.cli.printable import printable

    if c.ok:
        return printable(f"ok       {c.spec}  {c.name}: {c.topology} on {c.nodes} node(s)")
    first = c.problems[0]
    file = c.spec.split(":", 1)[0] if not Path(c.spec).exists() else c.spec
    if first.startswith(file + ":"):  # the file is on the line already: its line number is enough
        first = first[len(file) + 1 :].lstrip()
        first = f"line {first}" if first[:1].isdigit() else first
    again = f"srt-tui dry-run -f {shlex.quote(c.spec)}{options}"
    more = f" (+{len(c.problems) - 1} more: {again})" if len(c.problems) > 1 else ""
    return printable(f"refused  {c.spec}  {first}{more}")


def check_library(args: argparse.Namespace) -> int:
    """Check every job, print a line each and the tally (or one JSON document); 2 when any is refused."""
    from srt_tui.core.errors import Problem, SrtError

    if args.output:
        raise SrtError([Problem("-o/--output", "writes the files of one job, not of a library",
                                hint="drop -o, or give one file: -f file.yaml[:job] -o DIR")])  # fmt: skip
    files = recipe_files(args.file)
    missing = [f for f in files if not f.exists()]
    if missing:
        raise SrtError([Problem("-f", "no such recipe file or directory", file=str(missing[0]), hint="check the path")])
    profiles = _Profiles(args.profile)
    given = (("-p", args.profile), ("-t", args.topology))
    options = "".join(f" {flag} {shlex.quote(value)}" for flag, value in given if value)
    results: list[Checked] = []
    for path in files:
        checked = check_file(path, profiles, args.topology)
        results.extend(checked)
        if not args.json:
            sys.stdout.write("".join(_line(c, options) + "\n" for c in checked))
    refused = sum(1 for c in results if not c.ok)
    if args.json:
        doc = {
            "files": len(files),
            "jobs": len(results),
            "ok": len(results) - refused,
            "refused": refused,
            "results": [
                {
                    "spec": c.spec,
                    "name": c.name,
                    "ok": c.ok,
                    "problems": list(c.problems),
                    "topology": c.topology or None,
                    "nodes": c.nodes or None,
                }  # fmt: skip
                for c in results
            ],
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        print(f"\n{len(results)} jobs in {len(files)} files: {len(results) - refused} ok, {refused} refused")
    return 2 if refused else 0
