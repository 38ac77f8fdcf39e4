"""The recipe library the wizard browses: shipped, user, `./recipes` and the profile's srtctl checkout.

Each file is read, parsed and expanded once (or not at all when the cache holds it unchanged); the scan hands
its entries over folder by folder so the tree fills while it reads. Plain Python (no Textual): it runs inside a
thread worker and in unit tests.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from srt_tui.tui.display import display_path, scrub

if TYPE_CHECKING:
    from srt_tui.core.spec.recipe import FileRecipe, Recipe, RecipeSource
    from srt_tui.state.recipe_cache import RecipeCache

#: rows of a tall terminal: the scan hands folders over one by one until this many are out
SCREENFUL = 40
#: (entries of the folders read since the last call, files read so far, files in all)
ScanCallback = Callable[[list["RecipeEntry"], int, int], None]


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
    #: the row's facts, `1P2D · sglang`: worked out where the entry is read (a thread), not when the row is drawn
    shape: str = ""

    def matches(self, query: str) -> bool:
        """Case-insensitive substring match on folder, name, file, engine, frontend and topology."""
        q = query.strip().lower()
        if not q:
            return True
        hay = [self.folder, self.label, self.shown_path, self.description]
        if self.recipe is not None:
            from srt_tui.core.spec.resolved import topology_of

            hay += [self.recipe.name, self.recipe.engine.type, self.recipe.frontend.type, str(topology_of(self.recipe))]
        return any(q in h.lower() for h in hay)

    def chosen(self) -> tuple[Recipe, RecipeSource]:
        """The recipe and its located source for planning: an entry from the cache reads its file once now, so
        problems found later point at their line (SrtError when the file no longer loads)."""
        assert self.recipe is not None and self.source is not None
        if self.source.located is not None:
            return self.recipe, self.source
        from srt_tui.core.spec.recipe import load_recipe

        return load_recipe(self.spec)


def user_recipes_dir() -> Path:
    """The operator's own recipes: `<config dir>/recipes`."""
    from srt_tui.core.paths import user_config_dir

    return user_config_dir() / "recipes"


@dataclass(frozen=True)
class LibraryRoot:
    """A folder of recipes the wizard lists, and the label its folders carry in the tree."""

    prefix: str
    path: Path


def library_roots(srtctl_root: str | None = None, cwd: Path | None = None) -> list[LibraryRoot]:
    """Shipped recipes, the user's, `./recipes` (srtctl's interactive mode lists it, so an srt-slurm checkout's
    library shows) and `<srtctl_root>/recipes` of the profile: each existing folder once."""
    from srt_tui.core.paths import shipped_recipes_dir

    candidates = [LibraryRoot("", shipped_recipes_dir()), LibraryRoot("user", user_recipes_dir()),
                  LibraryRoot("./recipes", (cwd or Path.cwd()) / "recipes")]  # fmt: skip
    if srtctl_root:
        checkout = Path(srtctl_root).expanduser() / "recipes"
        candidates.append(LibraryRoot(display_path(checkout), checkout))
    out: list[LibraryRoot] = []
    seen: set[Path] = set()
    for root in candidates:
        try:
            real = root.path.resolve()
        except (OSError, RuntimeError):
            continue
        if real not in seen and root.path.is_dir():
            seen.add(real)
            out.append(root)
    return out


def _leading_comment(text: str) -> str:
    out: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        out.append(line.lstrip("#").strip())
    return " ".join(x for x in out if x)


def read_entries(
    path: Path, folder: str, *, shown: str | None = None, cache: RecipeCache | None = None
) -> list[RecipeEntry]:
    """Entries of one file, read and expanded once: one per variant for override files, else one (with its
    error if it is broken). With `cache`, a file unchanged since it was cached is not read again."""
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.recipe import file_job_data, validate_jobs
    from srt_tui.core.spec.yamlio import Located, parse_yaml, read_text_file

    shown = shown or display_path(path)
    try:
        st = path.stat()  # before reading: a change while it is read leaves a key that will not match again
    except OSError:
        st = None
    cached = cache.get(path, st) if cache is not None and st is not None else None
    if cached is not None:
        results = validate_jobs(path, Located(None, {}, str(path)), cached.jobs)
        if all(r.error is None for r in results):  # an invalid job is read again from the file, for its line
            return [_entry(path, folder, shown, r, cached.comment, cached=True) for r in results]
    try:
        text = read_text_file(path)
        src = parse_yaml(text, str(path))
        jobs = file_job_data(src)
    except SrtError as exc:
        return [RecipeEntry(folder, path.stem, str(path), shown, error=_first(exc))]
    comment = _leading_comment(text)
    if cache is not None and st is not None:
        cache.put(path, st, comment, jobs)
    return [_entry(path, folder, shown, r, comment) for r in validate_jobs(path, src, jobs)]


def _entry(path: Path, folder: str, shown: str, result: FileRecipe, comment: str, cached: bool = False) -> RecipeEntry:
    """The row of one job, labelled by its file (`stem`, `stem:variant`) as srtctl's browser shows files:
    two files of one folder never read the same, whatever their `name:`."""
    from srt_tui.core.spec.recipe import RecipeSource

    selector = result.selector
    label = path.stem if selector is None else f"{path.stem}:{selector}"
    spec = str(path) if selector is None else f"{path}:{selector}"
    if result.recipe is None:
        return RecipeEntry(folder, label, spec, shown, error=_first(result.error), description=comment)
    source = RecipeSource(path, selector, None) if cached else result.source
    return _loaded(folder, label, spec, shown, result.recipe, source, comment)


def _loaded(
    folder: str, label: str, spec: str, shown: str, recipe: Recipe, source: RecipeSource, comment: str
) -> RecipeEntry:
    """The entry of a recipe that loaded: its own description first, else the file's leading comment."""
    from srt_tui.core.spec.resolved import topology_of

    description, shape = recipe.description or comment, f"{topology_of(recipe)} · {recipe.engine.type}"
    return RecipeEntry(folder, label, spec, shown, recipe, source, None, description, tuple(recipe.profiles), shape)


def _first(exc: Exception | None) -> str:
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


def library_files(roots: list[LibraryRoot]) -> list[tuple[str, str, Path]]:
    """(tree folder, shown path, file) of every recipe file under `roots`, by root then path."""
    out: list[tuple[str, str, Path]] = []
    for root in roots:
        shown_base = display_path(root.path / "x")[:-1]  # the root as screens show it, with its slash
        for path in sorted(root.path.rglob("*.y*ml")):
            rel = path.relative_to(root.path)
            parent = rel.parent.as_posix()
            folder = "/".join(x for x in (root.prefix, "" if parent == "." else parent) if x) or "recipes"
            out.append((folder, shown_base + rel.as_posix(), path))
    return out


def scan_library(
    roots: list[LibraryRoot],
    on_batch: ScanCallback | None = None,
    *,
    cache: RecipeCache | None = None,
    every: float = 0.05,
) -> list[RecipeEntry]:
    """Every recipe under `roots`, handed to `on_batch` whole folders at a time (each folder at once until a
    screenful of rows is out, then at most every `every` seconds), and returned; the cache is saved at the end
    when it learnt something."""
    files = library_files(roots)
    out: list[RecipeEntry] = []
    batch: list[RecipeEntry] = []
    last = 0.0
    for i, (folder, shown, path) in enumerate(files):
        screenful = len(out) - len(batch) < SCREENFUL  # until a screenful is out, every folder goes at once
        if batch and folder != batch[-1].folder and (screenful or time.monotonic() - last >= every):
            if on_batch is not None:
                on_batch(batch, i, len(files))
            batch, last = [], time.monotonic()
        entries = read_entries(path, folder, shown=shown, cache=cache)
        out.extend(entries)
        batch.extend(entries)
    if on_batch is not None:
        on_batch(batch, len(files), len(files))
    if cache is not None:
        with contextlib.suppress(OSError):  # a cache that cannot be written only makes the next start slower
            cache.save()
    return out


def scan_recipes() -> list[RecipeEntry]:
    """Every recipe of the default library (no cache), sorted by root, folder and file."""
    return scan_library(library_roots())


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
    try:
        comment = _leading_comment(Path(file_part).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        comment = ""
    return _loaded("opened", recipe.name, spec, shown, recipe, source, comment)
