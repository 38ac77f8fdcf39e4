"""Edit a recipe in `$EDITOR` from the recipe step, then read it back and validate it against the profile.

A shipped (or otherwise read-only) recipe is copied to the user recipe folder first and the copy is
edited, so srt-tui's own files never change and the operator's edit survives an upgrade. Plain Python
apart from `run_editor`, which hands the terminal over with `App.suspend()`.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from srt_tui.tui.display import display_path, scrub

if TYPE_CHECKING:
    from textual.app import App

    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.tui.launch.recipe_catalog import RecipeEntry


@dataclass(frozen=True)
class EditTarget:
    """The file the editor opens, the selector of the variant edited, and the shipped file it copies."""

    path: Path
    variant: str | None
    copied_from: Path | None

    @property
    def spec(self) -> str:
        """`file.yaml` or `file.yaml:variant`, as the recipe loader takes it."""
        return f"{self.path}:{self.variant}" if self.variant else str(self.path)


@dataclass(frozen=True)
class EditResult:
    """The file's entries read back after editing, the edited one's spec, and what validation says about
    it (lines `file:line: field: message (fix: …)`): `fits` False when the recipe is valid but does not plan on
    the profile's cluster (`needs 7 nodes; max_nodes is 3`), `changed` False when the editor left the file as it
    was (then nothing was validated)."""

    path: Path
    entries: list[RecipeEntry]
    spec: str
    errors: list[str]
    warnings: list[str]
    fits: bool = True
    changed: bool = True


def _file_and_variant(spec: str) -> tuple[Path, str | None]:
    if Path(spec).exists() or ":" not in spec:
        return Path(spec), None
    head, _, variant = spec.rpartition(":")
    return Path(head), variant


def same_file(entry: RecipeEntry, path: Path) -> bool:
    """Is `entry` (a file or one of its variants) read from `path`?"""
    return _file_and_variant(entry.spec)[0].expanduser().resolve() == path.expanduser().resolve()


def replace_rows(entries: list[RecipeEntry], path: Path, fresh: list[RecipeEntry]) -> list[RecipeEntry]:
    """``entries`` with the rows of the file at ``path`` replaced by ``fresh`` (that file read again), in place: in
    each folder that listed it, under that folder's name and shown path (srtctl's `b200-fp8/1k1k.yaml` and
    `b200-fp4/1k1k.yaml` stay in their folders); appended when no folder listed it (a copy just made)."""
    out: list[RecipeEntry] = []
    placed: set[str] = set()
    for entry in entries:
        if not same_file(entry, path):
            out.append(entry)
        elif entry.folder not in placed:
            placed.add(entry.folder)
            out.extend(dataclasses.replace(f, folder=entry.folder, shown_path=entry.shown_path) for f in fresh)
    return out if placed else out + fresh


def read_bytes(path: Path) -> bytes | None:
    """The file's content before the editor runs (None when it cannot be read): an edit that leaves it so is no
    edit."""
    try:
        return path.expanduser().read_bytes()
    except OSError:
        return None


def edit_target(entry: RecipeEntry) -> EditTarget:
    """Where to edit `entry`: its own file when the operator may write it, else a copy in the user
    recipe folder (same sub-folder as in the shipped tree; an existing copy is kept, never overwritten); a job
    directory's recipe.yaml is always copied."""
    from srt_tui.core.jobdir.contract import JOB_FILE
    from srt_tui.core.paths import shipped_recipes_dir, user_recipes_dir

    path, variant = _file_and_variant(entry.spec)
    shipped = shipped_recipes_dir().resolve()
    real = path.expanduser().resolve()
    inside = real.is_relative_to(shipped)
    # a job's record of what it ran (a clone's recipe): never edited in place, copied as `<job dir name>.yaml`
    record = (real.parent / JOB_FILE).is_file()
    if not inside and not record and os.access(real, os.W_OK):
        return EditTarget(path.expanduser(), variant, None)
    relative = real.relative_to(shipped) if inside else Path(f"{real.parent.name}.yaml" if record else real.name)
    copy = user_recipes_dir() / relative
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(real, copy)
    return EditTarget(copy, variant, real)


def editor_command(path: Path) -> list[str]:
    """`$VISUAL`, else `$EDITOR` (as git picks them; words split as a shell would; `vi` when unset), then the file."""
    return [*shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"), str(path)]


def run_editor(app: App[object], path: Path) -> str | None:
    """Run the editor on `path` with the terminal handed over; None, or why it could not run.

    Headless (tests) there is no terminal to hand over and the editor runs as it is.
    """
    from textual.app import SuspendNotSupported

    try:
        command = editor_command(path)
    except ValueError as exc:  # shlex: an unbalanced quote in $VISUAL/$EDITOR
        return f"cannot read $VISUAL/$EDITOR ({exc}); fix its quoting"
    try:
        if app.is_headless:
            done = subprocess.run(command, check=False)  # noqa: S603 - the operator's own $EDITOR
        else:
            with app.suspend():
                done = subprocess.run(command, check=False)  # noqa: S603 - the operator's own $EDITOR
    except SuspendNotSupported:
        return f"this terminal cannot be handed to an editor; edit {display_path(path)} and reopen it with o"
    except OSError as exc:
        return f"cannot run the editor `{command[0]}` ({exc.strerror or exc}); set $EDITOR"
    if done.returncode != 0:
        return f"the editor `{command[0]}` exited with {done.returncode}; the file was read back anyway"
    return None


def read_back(target: EditTarget, profile: LoadedProfile | None, before: bytes | None = None) -> EditResult:
    """Read the edited file and validate it: load errors, then (against `profile`) plan errors (the recipe does not
    fit the profile) and warnings, each `file:line: field: message (fix: …)` where the key is written. A file the
    same as ``before`` is only read (its rows), not validated: nothing was edited."""
    from srt_tui.core.api import prepare_job
    from srt_tui.core.errors import SrtError
    from srt_tui.core.paths import user_recipes_dir
    from srt_tui.core.spec.recipe import load_recipe
    from srt_tui.tui.launch.recipe_catalog import read_entries

    recipes = user_recipes_dir().resolve()
    path = target.path.expanduser().resolve()
    folder = "opened"
    if path.is_relative_to(recipes):
        parent = path.parent.relative_to(recipes).as_posix()
        folder = "user" if parent == "." else f"user/{parent}"
    entries = read_entries(target.path, folder)
    spec = target.spec if any(e.spec == target.spec for e in entries) else entries[0].spec

    def result(errors: list[str], warnings: list[str], fits: bool = True) -> EditResult:
        return EditResult(target.path, entries, spec, errors, warnings, fits)

    if before is not None and read_bytes(target.path) == before:
        return EditResult(target.path, entries, spec, [], [], changed=False)
    try:
        recipe, source = load_recipe(spec)
    except SrtError as exc:
        return result([scrub(p.render()) for p in exc.problems], [])
    if profile is None:
        return result([], [])
    try:
        prepared = prepare_job(recipe, profile, source)
    except SrtError as exc:
        return result([scrub(p.render()) for p in exc.problems if p.severity == "error"], [], fits=False)
    return result([], [scrub(p.render()) for p in prepared.plan.warnings])
