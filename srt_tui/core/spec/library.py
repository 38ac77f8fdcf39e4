"""Where `-f` finds a recipe: a path, a shipped recipe's path under `recipes/`, or a recipe's name.

The shipped recipes live inside the installed package, so the README's `-f recipes/mocker/mocker-1p2d.yaml`
only named a file inside a checkout; the TUI lists the same recipe as `recipes/mocker/mocker-1p2d.yaml` and by
its name, `mocker-1p2d`. Every command that takes `-f` resolves it here (and `load_recipe` too), so each accepts
the same forms; a `:selector` (override variant, sweep member) stays on whatever form named the file.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from srt_tui.core.errors import ConfigError, Problem, did_you_mean
from srt_tui.core.paths import shipped_recipes_dir, user_recipes_dir

#: how a shipped recipe is shown and may be named: `recipes/<its path under the shipped folder>`
SHIPPED_PREFIX = "recipes"
_SUFFIXES = (".yaml", ".yml")
_FORMS = (
    "a recipe is a path (a relative one from the current directory), a shipped recipe's path "
    "(recipes/mocker/mocker-1p2d.yaml) or a recipe's name (mocker-1p2d)"
)


def split_selector(spec: str) -> tuple[str, str | None]:
    """(file part, selector) of `file.yaml[:selector]`, as `load_recipe` reads them: a path that exists whole
    keeps its colon."""
    if Path(spec).exists() or ":" not in spec:
        return spec, None
    head, _, selector = spec.rpartition(":")
    return head, selector


def find_recipe(spec: str) -> str:
    """`-f SPEC` as a path srt-tui can read, its `:selector` kept: a path that exists, as given; else a shipped
    recipe's path under the shipped folder (`recipes/x/y.yaml` or `x/y.yaml`, files and folders); else the one
    shipped or user recipe file whose name is SPEC (`y` or `y.yaml`). ConfigError when several recipes have
    that name (each listed), or when nothing matches (with the closest names)."""
    head, selector = split_selector(spec)
    if Path(head).exists():
        return spec
    found = _shipped_path(head) or _named(head)
    if found is None:
        hint = did_you_mean(head, _names(head))
        raise ConfigError([Problem("", "recipe file not found", f"{hint} {_FORMS}" if hint else _FORMS, file=head)])
    return str(found) if selector is None else f"{found}:{selector}"


def _shipped_path(head: str) -> Path | None:
    """`recipes/x/y.yaml` or `x/y.yaml` under the shipped recipes folder, if it is there (a file or a folder;
    `recipes` alone is the whole folder)."""
    base = shipped_recipes_dir()
    parts = PurePosixPath(head.replace("\\", "/")).parts
    if not parts or ".." in parts or PurePosixPath(head).is_absolute():
        return None
    for rel in (parts, parts[1:] if parts[0] == SHIPPED_PREFIX else None):
        if rel is None:
            continue
        candidate = base.joinpath(*rel)
        if candidate.exists():
            return candidate
    return None


def _named(head: str) -> Path | None:
    """The one shipped or user recipe file named `head` (its name with or without `.yaml`); None when none is."""
    if "/" in head or "\\" in head:
        return None
    matches = [p for p in library_files() if head in (p.stem, p.name)]
    if len(matches) > 1:
        which = ", ".join(shown(p) for p in matches)
        raise ConfigError([Problem("-f", f"{len(matches)} recipes are named `{head}`", f"give its path: {which}")])
    return matches[0] if matches else None


def library_files() -> list[Path]:
    """Every recipe file shipped with srt-tui, then the user's own (`<config dir>/recipes`), hidden folders
    skipped."""
    out: list[Path] = []
    for root in (shipped_recipes_dir(), user_recipes_dir()):
        if not root.is_dir():
            continue
        out += sorted(
            p
            for p in root.rglob("*")
            if p.suffix in _SUFFIXES and p.is_file() and not any(x.startswith(".") for x in p.relative_to(root).parts)
        )
    return out


def shown(path: Path) -> str:
    """A library file as `-f` takes it: `recipes/x/y.yaml` for a shipped one, else its path."""
    try:
        return f"{SHIPPED_PREFIX}/{path.relative_to(shipped_recipes_dir()).as_posix()}"
    except ValueError:
        return str(path)


def _names(head: str) -> list[str]:
    """What `head` may have meant, in its own form: shipped paths for a path, names for a name."""
    if "/" in head:
        base = shipped_recipes_dir()
        shipped = [p.relative_to(base).as_posix() for p in library_files() if p.is_relative_to(base)]
        return [f"{SHIPPED_PREFIX}/{rel}" for rel in shipped] + shipped
    return [p.name if head.endswith(_SUFFIXES) else p.stem for p in library_files()]
