"""The recipe library the wizard browses: shipped, user, `./recipes` and the profile's srtctl checkout.

Each file is read, parsed and expanded once (or not at all when the cache holds it unchanged); the scan hands
its entries over folder by folder so the tree fills while it reads. Plain Python (no Textual): it runs inside a
thread worker and in unit tests.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from srt_tui.core.spec.job_size import JobSize, too_big
from srt_tui.core.text.words import matches_words
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
    """One selectable recipe: where it lives, its error or what its row and summary show, and its parsed form
    when this process read it (rows from the reader process carry only their facts; `chosen` reads the file)."""

    folder: str
    label: str
    spec: str
    shown_path: str
    recipe: Recipe | None = field(default=None, compare=False)
    source: RecipeSource | None = field(default=None, compare=False)
    error: str | None = None
    description: str = ""
    profiles: tuple[str, ...] = field(default=())
    #: the row's facts, `1P2D · sglang`: worked out where the entry is read (a thread), not when the row is drawn
    shape: str = ""
    #: the summary pane's title and (label, value) rows, and more words the filter matches (name, engine,
    #: frontend, topology, the recipe's own `description:`): all worked out where the entry is read, so showing a
    #: row needs no recipe model
    title: str = ""
    summary: tuple[tuple[str, str], ...] = field(default=())
    words: tuple[str, ...] = field(default=())
    #: every reason a broken entry is refused, one line each (`error` is the first and how many more): the
    #: summary pane lists them all (srtctl's `enable-profiling` example has three)
    problems: tuple[str, ...] = field(default=())
    #: what its node count follows from (None for a broken entry): checked against the chosen profile's
    #: `max_nodes` as the row is drawn, with no recipe model
    size: JobSize | None = None
    #: the GPU type it is written for (`resources.gpu_type`), its container (`model.container`), and the Python
    #: packages its workers start from without one (`recipe_host_modules`; None: its engine does not say): what the
    #: list checks a row's fit to the chosen profile with, beside its size, with no recipe model
    gpu_type: str | None = None
    container: str | None = None
    host_modules: tuple[str, ...] | None = None
    #: a sweep file's whole-sweep row: how many jobs it submits at once (0: a row of one job)
    members: int = 0

    @property
    def broken(self) -> bool:
        """The file or this job of it cannot be used (`error` says why)."""
        return self.error is not None

    def too_big(self, max_nodes: int | None, profile_gpus: int | None) -> str | None:
        """Why the job as written does not fit a cluster of ``max_nodes`` nodes of ``profile_gpus`` GPUs (`needs 7
        nodes; this cluster has 3 (max_nodes)`), or None (it fits, the profile sets no limit, or it is broken)."""
        return None if self.size is None else too_big(self.size, max_nodes, profile_gpus)

    def matches(self, query: str) -> bool:
        """Every word of `query` is in the folder, name, file, engine, frontend, topology or the recipe's own
        `description:` (each word anywhere, case-insensitive; `!word` excludes), as the jobs lists filter:
        `gb300 2p1d` finds a 2P1D recipe under a gb300 folder. Not in the file's comments, which the summary
        shows as its `about` when the recipe has no description: they are notes about other files too (the AMD
        recipes' `Mocker twin: recipes/mocker/…` listed them all under `/mocker`)."""
        texts = (self.folder, self.label, self.shown_path, *self.words)
        return matches_words("\n".join(texts), query)  # one text a line: no word matches across two

    def chosen(self) -> tuple[Recipe, RecipeSource]:
        """The recipe and its located source for planning: an entry from the cache or the reader process reads its
        file now, so problems found later point at their line (SrtError when the file no longer loads)."""
        if self.recipe is not None and self.source is not None and self.source.located is not None:
            return self.recipe, self.source
        from srt_tui.core.spec.recipe import load_recipe

        return load_recipe(self.spec)

    def facts(self) -> dict[str, Any]:
        """What a row and its summary need, as JSON: the reader process sends these (no recipe model)."""
        return {name: getattr(self, name) for name in _FACTS} | {
            "size": self.size.facts() if self.size else None,
            "host_modules": list(self.host_modules) if self.host_modules is not None else None,
            "members": self.members,
        }

    @classmethod
    def from_facts(cls, data: dict[str, Any]) -> RecipeEntry:
        """The entry `facts` described (ValueError when `data` is not such a description)."""
        try:
            text = {
                name: data[name] for name in ("folder", "label", "spec", "shown_path", "description", "shape", "title")
            }
            if not all(isinstance(v, str) for v in text.values()) or not isinstance(data["error"], (str, type(None))):
                raise ValueError("a fact is not text")
            gpu_type, container, modules = data["gpu_type"], data["container"], data["host_modules"]
            if not all(isinstance(v, (str, type(None))) for v in (gpu_type, container)) or not isinstance(
                modules, (list, type(None))
            ):
                raise ValueError("a fact is not text")
            return cls(
                **text,
                error=data["error"],
                profiles=tuple(str(p) for p in data["profiles"]),
                summary=tuple((str(k), str(v)) for k, v in data["summary"]),
                words=tuple(str(w) for w in data["words"]),
                problems=tuple(str(p) for p in data["problems"]),
                size=None if data["size"] is None else JobSize.from_facts(data["size"]),
                gpu_type=gpu_type,
                container=container,
                host_modules=None if modules is None else tuple(str(m) for m in modules),
                members=int(data.get("members", 0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a recipe entry: {exc}") from exc


#: the fields `RecipeEntry.facts` carries as they are (and `size`, as JSON)
_FACTS = (
    "folder",
    "label",
    "spec",
    "shown_path",
    "error",
    "description",
    "profiles",
    "shape",
    "title",
    "summary",
    "words",
    "problems",
    "gpu_type",
    "container",
)


@dataclass(frozen=True)
class LibraryRoot:
    """A folder of recipes the wizard lists, and the label its folders carry in the tree."""

    prefix: str
    path: Path


def library_roots(srtctl_root: str | None = None, cwd: Path | None = None) -> list[LibraryRoot]:
    """Shipped recipes, the user's, `./recipes` (srtctl's interactive mode lists it, so an srt-slurm checkout's
    library shows) and `<srtctl_root>/recipes` of the profile: each existing folder once."""
    from srt_tui.core.paths import shipped_recipes_dir, user_recipes_dir

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


#: a list item in a recipe's comment (`- …`, `* …`, `1. …`): a line of its own, its wrapped lines under its text
LIST_ITEM = re.compile(r"(\s*)([-*•]|\d+[.)])\s+")


def _leading_comment(text: str) -> str:
    """The file's leading comment as its author broke it (srtctl's headers are a title, paragraphs and indented
    lists): each line less its `#`s and the blank after them, its indentation kept; a line of `#`s alone is one
    paragraph break, none first or last; lines the author's editor wrapped joined again (`_unwrapped`)."""
    out: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        body = line.lstrip("#").rstrip()
        body = body[1:] if body.startswith(" ") else body
        if body.strip():
            out.append(body)
        elif out and out[-1]:
            out.append("")
    while out and not out[-1]:
        out.pop()
    return "\n".join(_unwrapped(out))


#: the shortest line taken for one an editor wrapped: editors fill to 60-120 columns; a shorter line ended early
WRAPPED_AT_LEAST = 40


#: a line that opens on a label, `max global bs: 256`: a few words, then a colon
LABEL = re.compile(r"\s*[\w`][\w`.\-/ ]{0,30}:(\s|$)")


def _stands_alone(line: str) -> bool:
    """A line that starts a line of its own whatever comes before it: a list item (`- …`, `* …`, `1. …`), a line
    that opens on a number (`14 nodes total.`: srtctl's headers list facts so) or on a label (`Config: …`)."""
    return bool(LIST_ITEM.match(line) or LABEL.match(line)) or line.lstrip()[:1].isdigit()


def _opens_a_sentence(text: str) -> bool:
    """The text opens on a capitalised word (`Adapted to …`, `Frontend is …`): the author began a new line, not a
    wrapped one (an acronym, `MXFP4 MoE kernels`, goes on a sentence)."""
    word = text.split()[0]
    return word[0].isupper() and (len(word) == 1 or word[1].islower())


def _unwrapped(lines: list[str]) -> list[str]:
    """``lines`` with those the author's editor wrapped joined again, so the pane wraps them at its own width (a
    paragraph wrapped at 100 columns read ragged in 50). Only wrapped prose is joined: a line goes on the one before
    when it starts where that one's text does (a list item's after its `- `; an indented line only under a list
    item), goes on its sentence (it does not open on a capitalised word, a list item, a number or a label), and the
    one before ended where an editor wraps: at least WRAPPED_AT_LEAST columns, the next word would not have fit (the
    paragraph's longest line stands for the fill column), not on a colon, and not the title (the first line, unless
    it ends on a comma or the next goes on in lower case). Every other break is the author's and stays: a blank
    line, a list item, an indented block (commands, a table), `Based on …` under a title."""
    out: list[str] = []
    # the paragraph's longest line; the line before as written, where its text starts, and whether it is (the going
    # on of) a list item
    fill, last, under, listed = 0, 0, -1, False
    for i, line in enumerate(lines):
        if not line:
            out.append(line)
            fill, last, under, listed = 0, 0, -1, False
            continue
        if not fill:
            fill = max(map(len, itertools.takewhile(bool, lines[i:])))
        text = line.lstrip()
        indent = len(line) - len(text)
        before = out[-1] if out else ""
        wrapped = (
            indent == under
            and (indent == 0 or listed)
            # the first line is a title (`… (GSM8K)` over `NEXTN MTP …`) unless it plainly goes on: a comma, lower case
            and (len(out) > 1 or before.endswith(",") or not text[0].isupper())
            and not before.endswith(":")  # what it introduces (a command, a list) is on a line of its own
            and not _stands_alone(line)
            and not _opens_a_sentence(text)
            and last >= WRAPPED_AT_LEAST
            and last + 1 + len(text.split()[0]) > fill
        )
        if wrapped:
            out[-1] += " " + text
        else:
            out.append(line)
            item = LIST_ITEM.match(line)
            listed = item is not None
            under = item.end() if item else indent
        last = len(line)
    return out


def read_entries(
    path: Path, folder: str, *, shown: str | None = None, cache: RecipeCache | None = None
) -> list[RecipeEntry]:
    """Entries of one file, read and expanded once: one per variant for override files, else one (with its
    error if it is broken, its line in it). With `cache`, a file unchanged since it was cached is not read again."""
    shown = shown or display_path(path)
    try:
        st = path.stat()  # before reading: a change while it is read leaves a key that will not match again
    except OSError:
        st = None
    cached = cache.get(path, st) if cache is not None and st is not None else None
    if cached is not None:
        try:
            return [_from_cached(path, folder, shown, row) for row in cached]
        except ValueError:
            pass  # a damaged row: the file is read again
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.recipe import file_job_data, validate_jobs  # the recipe models: only when reading
    from srt_tui.core.spec.yamlio import parse_yaml, read_text_file

    try:
        text = read_text_file(path)
        src = parse_yaml(text, str(path))
        jobs = file_job_data(src)
    except SrtError as exc:
        selectors: list[str | None] = [None]
        entries = [_refused(folder, path.stem, str(path), shown, exc)]
    else:
        comment = _leading_comment(text)
        results = [_checked(r) for r in validate_jobs(path, src, jobs)]
        entries = [_entry(path, folder, shown, r, comment) for r in results]
        selectors = [r.selector for r in results]
        whole = _whole_sweep(path, folder, shown, selectors, entries)
        if whole is not None:  # listed above its members
            entries, selectors = [whole, *entries], [None, *selectors]
    if cache is not None and st is not None and entries:
        cache.put(path, st, [_cached_row(e, s) for e, s in zip(entries, selectors, strict=True)])
    return entries


def _checked(result: FileRecipe) -> FileRecipe:
    """A job that loaded, refused when the core's profile-free checks find an error (`tp-size: eight`), with the
    reasons and lines `srt-tui dry-run` gives: the list shows its ✗ instead of a row that cannot be planned."""
    from srt_tui.core.errors import SrtError
    from srt_tui.core.plan.validate import errors, recipe_problems
    from srt_tui.core.spec.locate import locate

    if result.recipe is None:
        return result
    found = [locate(p, result.source) for p in errors(recipe_problems(result.recipe))]
    return dataclasses.replace(result, recipe=None, error=SrtError(found)) if found else result


def _label_spec(path: Path, selector: str | None) -> tuple[str, str]:
    """A job's row label and spec, by its file (`stem`, `stem:variant`) as srtctl's browser shows files: two
    files of one folder never read the same, whatever their `name:`."""
    if selector is None:
        return path.stem, str(path)
    return f"{path.stem}:{selector}", f"{path}:{selector}"


#: where a row is listed follows the root it was found under and the working directory: never cached
_PLACE = ("folder", "label", "spec", "shown_path")


def _cached_row(entry: RecipeEntry, selector: str | None) -> dict[str, Any]:
    """What the cache keeps of a row: its facts and its variant, not where it is listed."""
    return {**{k: v for k, v in entry.facts().items() if k not in _PLACE}, "selector": selector}


def _from_cached(path: Path, folder: str, shown: str, row: dict[str, Any]) -> RecipeEntry:
    """The entry a cached row describes, listed under `folder` (ValueError when the row is damaged)."""
    selector = row.get("selector")
    if selector is not None and not isinstance(selector, str):
        raise ValueError("a variant that is not text")
    label, spec = _label_spec(path, selector)
    if row.get("members"):
        label = sweep_label(path, int(row["members"]))
    return RecipeEntry.from_facts({**row, "folder": folder, "label": label, "spec": spec, "shown_path": shown})


def _entry(path: Path, folder: str, shown: str, result: FileRecipe, comment: str) -> RecipeEntry:
    """The row of one job of a file read now."""
    label, spec = _label_spec(path, result.selector)
    if result.recipe is None:
        return _refused(folder, label, spec, shown, result.error, comment)
    return _loaded(folder, label, spec, shown, result.recipe, result.source, comment)


def sweep_label(path: Path, members: int) -> str:
    """The whole-sweep row's label: `msweep  (all 4 jobs)`."""
    return f"{path.stem}  (all {members} jobs)"


def _whole_sweep(
    path: Path, folder: str, shown: str, selectors: list[str | None], members: list[RecipeEntry]
) -> RecipeEntry | None:
    """A sweep file's row for all its jobs at once (`apply -f file.yaml` submits them as one group), or None for a
    file that sweeps nothing (a recipe, an override file). Its facts are its first member's (a sweep varies values,
    not the job's shape); refused, with the first refused member's reason, when one of them is (nothing of a sweep
    is submitted then, as `apply` refuses it)."""
    jobs = [(s, e) for s, e in zip(selectors, members, strict=True) if s is not None and s != "base"]
    if len(jobs) < 2 or not any("sweep[" in s for s, _ in jobs):
        return None
    label, n = sweep_label(path, len(jobs)), len(jobs)
    refused = next(((s, e) for s, e in jobs if e.broken), None)
    if refused is not None:
        why = f"{refused[0]} cannot be used: {refused[1].error}; nothing of a sweep is submitted then"
        return dataclasses.replace(
            _refused(folder, label, str(path), shown, None), error=why, problems=(why,), members=n
        )
    first = jobs[0][1]
    names = ", ".join(e.title or e.label for _, e in jobs)
    swept = swept_line(path, [s for s, _ in jobs])
    facts = tuple(
        # a fact the members do not share (the benchmark's `osl 8` of the first job only) says whose it is
        (key, value if all(value == _fact(e, i) for _, e in jobs) else f"{value}  (the first job's)")
        for i, (key, value) in enumerate(first.summary)
    )
    summary = (("sweep", f"{n} jobs, submitted as one group: {names}"), *((("swept", swept),) if swept else ()), *facts)
    return dataclasses.replace(
        first, label=label, spec=str(path), title=f"{path.stem}: all {n} jobs", summary=summary, members=n
    )


def _fact(entry: RecipeEntry, index: int) -> str | None:
    """The value of an entry's summary row ``index``, None past its rows."""
    return entry.summary[index][1] if index < len(entry.summary) else None


def swept_line(path: Path, selectors: list[str]) -> str:
    """Every value each swept field takes over the members ``selectors``, in their order: `osl 8, 4 · isl 32, 64`
    (the whole-sweep row's summary showed its first member's `osl 8` only); empty when the file cannot say."""
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.recipe import file_sweep_values

    try:
        values = file_sweep_values(path)
    except (SrtError, OSError, ValueError):
        return ""
    taken: dict[str, list[str]] = {}
    for selector in selectors:
        for key, value in values.get(selector, {}).items():
            if (shown := str(value)) not in (seen := taken.setdefault(str(key), [])):
                seen.append(shown)
    return " · ".join(f"{key} {', '.join(vals)}" for key, vals in taken.items())


def _loaded(
    folder: str, label: str, spec: str, shown: str, recipe: Recipe, source: RecipeSource, comment: str
) -> RecipeEntry:
    """The entry of a recipe that loaded: its own description first, else the file's leading comment, and its
    summary rows (a plain file's title is its `name:`, a variant's its label)."""
    from srt_tui.core.spec.resolved import topology_of

    topology = topology_of(recipe)
    description, shape = recipe.description or comment, f"{topology} · {recipe.engine.type}"
    title = recipe.name if source.variant is None else label
    words = (recipe.name, recipe.engine.type, recipe.frontend.type, str(topology), recipe.description or "")
    return RecipeEntry(
        folder, label, spec, shown, recipe, source, None, description, tuple(recipe.profiles), shape, title,
        _summary(recipe), words, size=JobSize.of(recipe), gpu_type=recipe.resources.gpu_type,
        container=recipe.model.container, host_modules=_host_modules(recipe),
    )  # fmt: skip


def _host_modules(recipe: Recipe) -> tuple[str, ...] | None:
    """What its workers start from on the host (`recipe_host_modules`); None when that cannot be said."""
    from srt_tui.core.errors import SrtError
    from srt_tui.core.plan.host_programs import recipe_host_modules

    try:
        return recipe_host_modules(recipe)
    except (SrtError, LookupError, ValueError):  # an engine or frontend refused elsewhere: the row says nothing
        return None


def _summary(recipe: Recipe) -> tuple[tuple[str, str], ...]:
    """The summary pane's rows; a recipe the summary cannot describe still lists (its row says why)."""
    from srt_tui.tui.launch.recipe_summary import summary_rows

    try:
        return tuple(summary_rows(recipe))
    except (LookupError, ValueError, TypeError, AttributeError) as exc:  # a summary bug must not lose the row
        return (("summary", f"cannot be summarised: {scrub(str(exc))}"),)


def _refused(folder: str, label: str, spec: str, shown: str, exc: Exception | None, about: str = "") -> RecipeEntry:
    """The row of a file or job that cannot be used: its first reason and how many more (what a toast says), and
    every reason (what its summary lists)."""
    problems = _problems(exc)
    more = f" (+{len(problems) - 1} more in the summary)" if len(problems) > 1 else ""
    return RecipeEntry(folder, label, spec, shown, error=problems[0] + more, description=about, problems=problems)


def _problems(exc: Exception | None) -> tuple[str, ...]:
    """Each problem of ``exc``, one line each: `line 23: profiling.isl: unknown key `isl` (fix: …)`."""
    from srt_tui.core.errors import SrtError

    if not (isinstance(exc, SrtError) and exc.problems):
        return (scrub(str(exc)),)
    out = []
    for p in exc.problems:
        where = f"line {p.line}: " if p.line else ""
        text = f"{where}{p.field + ': ' if p.field else ''}{p.message}"
        out.append(scrub(text + (f" (fix: {p.hint})" if p.hint else "")))
    return tuple(out)


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
    screenful of rows is out, then at most every `every` seconds), and returned; the cache is saved, when it learnt
    something, before the last batch goes out (the app stops a reader process once it has that batch)."""
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
    if cache is not None:  # before the last batch: a reader process is let go once it has sent that
        with contextlib.suppress(OSError):  # a cache that cannot be written only makes the next start slower
            cache.save()
    if on_batch is not None:
        on_batch(batch, len(files), len(files))
    return out


def scan_recipes() -> list[RecipeEntry]:
    """Every recipe of the default library (no cache), sorted by root, folder and file."""
    return scan_library(library_roots())


def cloned_entry(job_id: str, recipe: Recipe, source: RecipeSource) -> RecipeEntry:
    """The row of a cloned job's recipe (at the job's topology) among the opened ones: back on the recipe list,
    Enter goes on with the clone rather than a library file."""
    where = str(source.path) if source.path is not None else f"job {job_id}"
    spec = f"{where}:{source.variant}" if source.variant else where
    return _loaded("opened", f"job {job_id} (clone)", spec, display_path(where), recipe, source, "")


#: where a relative path typed in Open… is read from
RELATIVE_NOTE = "a relative path is read from the directory srt-tui started in"


def _spec_and_file(path_text: str) -> tuple[str, str]:
    """The recipe spec typed (`file.yaml` or `file.yaml:variant`, `~` expanded) and its file part."""
    spec = str(Path(path_text.strip()).expanduser()) if ":" not in path_text else path_text.strip()
    file_part = spec.rsplit(":", 1)[0] if ":" in spec and not Path(spec).exists() else spec
    return spec, file_part


def why_not_a_recipe_file(path_text: str) -> str | None:
    """Why Open… cannot take ``path_text`` (no file there, or a folder), or None: the prompt stays open with the
    reason under its field, so what is typed next is not read as the step's keys."""
    _, file_part = _spec_and_file(path_text)
    path = Path(file_part)
    if path.is_dir():
        return f"{display_path(file_part)} is a folder: give a recipe file (file.yaml or file.yaml:variant)"
    if not path.is_file():
        return f"no such recipe file: {display_path(file_part)} ({RELATIVE_NOTE})"
    return None


def open_recipes(path_text: str) -> list[RecipeEntry]:
    """Read a recipe given by path ("open file…"): `file.yaml` or `file.yaml:variant`; a file of several jobs (a
    sweep, an override file) given whole lists each of its jobs, as the library does, to choose one from (it ended
    in the loader's `pick one: -f file.yaml:<job>`, a command line the wizard has no place to type). Empty when no
    file is there: a row for it would only say so, and stay (a file that is there but refused gets its ✗ row)."""
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.recipe import list_variants

    spec, file_part = _spec_and_file(path_text)
    path = Path(file_part)
    if not path.is_file():
        return []
    if spec == file_part:
        try:
            several = len(list_variants(path)) > 1
        except SrtError:
            several = False  # refused: `open_recipe` gives its ✗ row and why
        if several:
            return read_entries(path, "opened", shown=display_path(file_part))
    entry = open_recipe(spec)
    return [] if entry is None else [entry]


def open_recipe(path_text: str) -> RecipeEntry | None:
    """Read one recipe given by path: `file.yaml` or `file.yaml:variant`. None when no file is there."""
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.recipe import load_recipe

    spec, file_part = _spec_and_file(path_text)
    if not Path(file_part).is_file():
        return None
    shown = display_path(file_part)
    try:
        recipe, source = load_recipe(spec)
    except SrtError as exc:
        return _refused("opened", Path(file_part).stem, spec, shown, exc)
    try:
        comment = _leading_comment(Path(file_part).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        comment = ""
    return _loaded("opened", recipe.name, spec, shown, recipe, source, comment)
