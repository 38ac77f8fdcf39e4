"""The recipe catalogue the wizard browses: shipped and user recipe folders, each file (or variant) read once.

Plain Python (no Textual) so it runs inside a thread worker and in unit tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from srt_tui.tui.display import display_path, scrub

if TYPE_CHECKING:
    from srt_tui.core.spec.recipe import Recipe, RecipeSource


@dataclass(frozen=True)
class RecipeEntry:
    """One selectable recipe: where it lives, its parsed form or its error, and a one-line description."""

    folder: str
    label: str
    spec: str
    shown_path: str
    recipe: Recipe | None = None
    source: RecipeSource | None = None
    error: str | None = None
    description: str = ""
    profiles: tuple[str, ...] = field(default=())

    def matches(self, query: str) -> bool:
        """Case-insensitive substring match on folder, name, file, engine, frontend and topology."""
        q = query.strip().lower()
        if not q:
            return True
        hay = [self.folder, self.label, self.shown_path, self.description]
        if self.recipe is not None:
            from srt_tui.core.spec.resolved import topology_of

            hay += [self.recipe.engine.type, self.recipe.frontend.type, str(topology_of(self.recipe))]
        return any(q in h.lower() for h in hay)


def user_recipes_dir() -> Path:
    """The operator's own recipes: `<config dir>/recipes`."""
    from srt_tui.core.paths import user_config_dir

    return user_config_dir() / "recipes"


def _leading_comment(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    out: list[str] = []
    for line in lines:
        if not line.startswith("#"):
            break
        out.append(line.lstrip("#").strip())
    return " ".join(x for x in out if x)


def read_entries(path: Path, folder: str) -> list[RecipeEntry]:
    """Entries of one file: one per variant for override files, else one (with its error if it is broken)."""
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.recipe import list_variants, load_recipe

    shown = display_path(path)
    comment = _leading_comment(path)
    try:
        variants = list_variants(path)
    except SrtError as exc:
        return [RecipeEntry(folder, path.stem, str(path), shown, error=_first(exc), description=comment)]
    specs = [(f"{path.stem}:{v}", f"{path}:{v}") for v in variants] or [(path.stem, str(path))]
    out: list[RecipeEntry] = []
    for label, spec in specs:
        try:
            recipe, source = load_recipe(spec)
        except SrtError as exc:
            out.append(RecipeEntry(folder, label, spec, shown, error=_first(exc), description=comment))
            continue
        out.append(_loaded(folder, recipe.name if not variants else label, spec, shown, recipe, source, comment))
    return out


def _loaded(
    folder: str, label: str, spec: str, shown: str, recipe: Recipe, source: RecipeSource, comment: str
) -> RecipeEntry:
    """The entry of a recipe that loaded: its own description first, else the file's leading comment."""
    return RecipeEntry(
        folder, label, spec, shown, recipe, source, None, recipe.description or comment, tuple(recipe.profiles)
    )


def _first(exc: Exception) -> str:
    from srt_tui.core.errors import SrtError

    if isinstance(exc, SrtError) and exc.problems:
        p = exc.problems[0]
        where = f"line {p.line}: " if p.line else ""
        text = f"{where}{p.field + ': ' if p.field else ''}{p.message}"
        if p.hint:
            text += f" (fix: {p.hint})"
        more = len(exc.problems) - 1
        return scrub(text + (f" (+{more} more)" if more > 0 else ""))
    return scrub(str(exc))


def scan_recipes() -> list[RecipeEntry]:
    """Every shipped recipe (grouped by sub-folder) and every user recipe, sorted by folder then file."""
    from srt_tui.core.paths import shipped_recipes_dir

    out: list[RecipeEntry] = []
    for prefix, base in (("", shipped_recipes_dir()), ("user", user_recipes_dir())):
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.y*ml")):
            rel_parent = path.parent.relative_to(base).as_posix()
            parts = [x for x in (prefix, "" if rel_parent == "." else rel_parent) if x]
            out.extend(read_entries(path, "/".join(parts) or "recipes"))
    return out


def open_recipe(path_text: str) -> RecipeEntry:
    """Read a recipe given by path ("open file…"): `file.yaml` or `file.yaml:variant`."""
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.recipe import load_recipe

    spec = str(Path(path_text.strip()).expanduser()) if ":" not in path_text else path_text.strip()
    file_part = spec.rsplit(":", 1)[0] if ":" in spec and not Path(spec).exists() else spec
    shown = display_path(file_part)
    try:
        recipe, source = load_recipe(spec)
    except SrtError as exc:
        return RecipeEntry("opened", Path(file_part).stem, spec, shown, error=_first(exc))
    return _loaded("opened", recipe.name, spec, shown, recipe, source, _leading_comment(Path(file_part)))
