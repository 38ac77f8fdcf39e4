"""Host-independent display of paths: shipped files relative to the checkout, config under `~` or its variable.

Screens never print an absolute repository path, so screenshots and snapshots look the same on every host.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


def _under(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def display_path(path: Path | str | None) -> str:
    """`recipes/mocker/x.yaml`, `$SRT_TUI_CONFIG_DIR/profiles/y.yaml`, `~/z.yaml`, or a cwd-relative path."""
    if path is None:
        return "-"
    from srt_tui.core.paths import shipped_profiles_dir, shipped_recipes_dir, user_config_dir

    p = Path(path).expanduser()
    p = p if p.is_absolute() else (Path.cwd() / p)
    p = Path(os.path.normpath(p))
    for label, base in (("profiles", shipped_profiles_dir()), ("recipes", shipped_recipes_dir())):
        rel = _under(p, base.resolve())
        if rel is not None:
            return f"{label}/{rel}"
    cfg = user_config_dir().resolve()
    rel = _under(p, cfg)
    if rel is not None:
        prefix = "$SRT_TUI_CONFIG_DIR" if os.environ.get("SRT_TUI_CONFIG_DIR") else "~/.config/srt-tui"
        return f"{prefix}/{rel}"
    rel = _under(p, Path.cwd().resolve())
    if rel is not None:
        return rel
    rel = _under(p, Path.home().resolve())
    if rel is not None:
        return f"~/{rel}"
    return str(p)


def home_path(path: Path) -> str:
    """The full path the operator can copy, `~/…` when under the home directory (a file written: where it went)."""
    full = Path(os.path.normpath(path.expanduser().absolute()))
    rel = _under(full, Path.home())
    if rel is None:
        rel = _under(full, Path.home().resolve())
    return f"~/{rel}" if rel is not None else str(full)


#: a path in a problem line: `/…` or `~/…` up to a blank or the sentence's `:`, `;`, `,` or `)` (never a URL's
#: `//host/…` or `host:8000/health`, whose `/` follows a `:`, a `/` or a word)
PATH = re.compile(r"(?<![\w.:/~-])~?/[^\s:;,()'\"]+")


def fit_paths(text: str, width: int) -> str:
    """``text`` with each path longer than ``width`` cut in its middle (`shorten_path`), so a line of ``width``
    holds it whole: a column cut `/root/.pyenv/versions/3.11.7/bin/python` at its edge to `…/bin/pytho…`."""
    if width <= 0:
        return text
    return PATH.sub(lambda m: shorten_path(m.group(0), width) if len(m.group(0)) > width else m.group(0), text)


def shorten_path(shown: str, width: int) -> str:
    """A shown path in `width` columns when it can be: folders of its middle give way to `…`, never its head (where
    it lives: `$SRT_TUI_CONFIG_DIR`, `~/.config/srt-tui`, `recipes`, `./recipes`) nor its file name."""
    if width <= 0 or len(shown) <= width or "/" not in shown:
        return shown
    return _shorten(shown, width, _config_head())


def _shorten(shown: str, width: int, config: str) -> str:
    """`shorten_path`, the config directory's head given."""
    if width <= 0 or len(shown) <= width or "/" not in shown:
        return shown
    head, middle, name = _parts(shown, config)
    if not middle:
        return shown
    while middle and len(f"{head}/…/{'/'.join(middle)}/{name}") > width:
        middle.pop(0)
    return f"{head}/…/" + "".join(f"{m}/" for m in middle) + name


def _config_head() -> str:
    """How the operator's config directory shows: the head of the paths under it (`$SRT_TUI_CONFIG_DIR`)."""
    from srt_tui.core.paths import user_config_dir

    return display_path(user_config_dir()).rstrip("/.")


def _parts(shown: str, config: str) -> tuple[str, list[str], str]:
    """A shown path's head (where it lives: `./recipes`, ``config``), its middle folders, its name."""
    if shown.startswith(config + "/"):
        head, body = config, shown[len(config) + 1 :]
    else:
        head, body = shown.split("/", 1)
        if head in ("", ".", "~") and "/" in body:
            first, body = body.split("/", 1)
            head = f"{head}/{first}"
    *middle, name = body.split("/")
    return head, middle, name


_T = TypeVar("_T")


def read_alike(names: Iterable[_T], shown: Callable[[_T], str]) -> list[list[_T]]:
    """The groups of ``names`` that ``shown`` (how a list cuts a name to its width) shows the same: two or more."""
    by_shown: dict[str, list[_T]] = {}
    for name in names:
        by_shown.setdefault(shown(name), []).append(name)
    return [group for group in by_shown.values() if len(group) > 1]


#: the most middle folders a path that reads alike is tried without (each subset is a cut)
MIDDLE_MAX = 8


def shorten_paths(paths: Iterable[str], width: int) -> dict[str, str]:
    """Each of ``paths`` (one list's folders) as `shorten_path` shows it in ``width``, but those it would show alike
    (srtctl's nine `./recipes/…/1k1k/mtp`) keep what tells them apart: each the cut that reads as it alone of the
    paths of its name (`…` standing for a folder or more), with the fewest `…`, its head kept if it can be, the
    longest that fits (`./recipes/sglang/…/1k1k`, `…/b200-fp4/1k1k/mtp`). Where no cut reads as one alone
    (`./recipes/gb300-fp8/1k1k/mtp` beside `./recipes/trtllm/gb300-fp8/1k1k/mtp` in 25 columns), each takes the
    first of its own cut and the cuts that keep its end that no other folder shows (`…/gb300-fp8/1k1k/mtp`)."""
    paths, config = list(paths), _config_head()
    shown = {path: _shorten(path, width, config) for path in paths}
    by_name: dict[str, list[str]] = {}
    for path in paths:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    alike = [path for group in read_alike(paths, shown.__getitem__) for path in group]
    undecided: dict[str, list[str]] = {}
    for path in alike:
        cuts = _cuts(path, width, config)
        rivals = [other for other in by_name[path.rsplit("/", 1)[-1]] if other != path]
        telling = next((cut for cut in cuts if not any(_reads_as(cut).fullmatch(other) for other in rivals)), None)
        if telling is not None:
            shown[path] = telling
        else:  # its own cut first, then those that keep what it shows after its `…`
            tail = "/" + shown[path].rsplit("…/", 1)[-1]
            undecided[path] = [shown[path], *(cut for cut in cuts if cut.endswith(tail))]
    taken = {text for path, text in shown.items() if path not in undecided}
    for path in sorted(undecided):
        shown[path] = next((cut for cut in undecided[path] if cut not in taken), shown[path])
        taken.add(shown[path])
    return shown


def _cuts(path: str, width: int, config: str) -> list[str]:
    """The cuts of ``path`` within ``width`` (folders of its middle left out, its head too), best first (the fewest
    `…`, the head kept, the longest); none for a middle over `MIDDLE_MAX`."""
    head, middle, name = _parts(path, config)
    if not middle or len(middle) > MIDDLE_MAX:
        return []
    ranked: list[tuple[tuple[int, bool, int], list[str]]] = []
    for with_head in (True, False):
        for mask in range(1 << len(middle)):
            tokens = [head] if with_head else ["…"]
            for i, folder in enumerate(middle):
                if mask >> i & 1:
                    tokens.append(folder)
                elif tokens[-1] != "…":
                    tokens.append("…")
            tokens.append(name)
            text = "/".join(tokens)
            if len(text) <= width:
                ranked.append(((tokens.count("…"), not with_head, -len(text)), tokens))
    return ["/".join(tokens) for _, tokens in sorted(ranked)]


def _reads_as(cut: str) -> re.Pattern[str]:
    """The paths a cut reads as: its `…` one folder or more."""
    return re.compile("/".join(r"[^/]+(?:/[^/]+)*" if part == "…" else re.escape(part) for part in cut.split("/")))


def wrap_path(shown: str, width: int) -> str:
    """A shown path in lines of `width`: its middle folders give way first (`shorten_path`); what still does not
    fit puts the file name on lines of its own, broken only after a `-` or `_`, never inside a word."""
    shown = shorten_path(shown, width)
    if width <= 0 or len(shown) <= width or "/" not in shown:
        return shown
    head, name = shown.rsplit("/", 1)
    lines = [head + "/", ""]
    for word in re.findall(r"[^-_]+[-_]*|[-_]+", name):  # `mi355x-`, `1p1d-`, `sglang-`, `mori.yaml`
        if lines[-1] and len(lines[-1]) + len(word) > width:
            lines.append("")
        lines[-1] += word
    return "\n".join(lines)


def scrub(text: str) -> str:
    """Replace absolute shipped/config directories inside free text (error messages) by their display form."""
    from srt_tui.core.paths import shipped_profiles_dir, shipped_recipes_dir, user_config_dir

    pairs = [
        (str(shipped_profiles_dir().resolve()), "profiles"),
        (str(shipped_recipes_dir().resolve()), "recipes"),
        (str(user_config_dir().resolve()), display_path(user_config_dir()).rstrip("/.")),
        (str(Path.cwd().resolve()), "."),
    ]
    for raw, shown in sorted(pairs, key=lambda x: -len(x[0])):
        if raw and raw != "/":
            text = text.replace(raw, shown)
    return text


def hang(out: Text, value: Text, console: Console, width: int, indent: int, *, first: bool = True) -> None:
    """Append ``value`` and a newline to ``out``, wrapped to ``width`` with every line ``indent`` columns in (the
    first too unless ``first`` is False): a long value continues under its own start, not at column 0 where it
    reads as the next item (the worker detail's sections, the Problems panel's lines)."""
    lines = value.wrap(console, width - indent) if width - indent > 10 else [value]
    for i, line in enumerate(lines):
        if i or first:
            out.append(" " * indent)
        out.append_text(line)
        out.append("\n")
