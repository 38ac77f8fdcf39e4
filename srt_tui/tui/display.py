"""Host-independent display of paths: shipped files relative to the checkout, config under `~` or its variable.

Screens never print an absolute repository path, so screenshots and snapshots look the same on every host.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


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


def shorten_path(shown: str, width: int) -> str:
    """A shown path in `width` columns when it can be: folders of its middle give way to `…`, never its head (where
    it lives: `$SRT_TUI_CONFIG_DIR`, `~/.config/srt-tui`, `recipes`, `./recipes`) nor its file name."""
    if width <= 0 or len(shown) <= width or "/" not in shown:
        return shown
    from srt_tui.core.paths import user_config_dir

    config = display_path(user_config_dir()).rstrip("/.")
    if shown.startswith(config + "/"):
        head, body = config, shown[len(config) + 1 :]
    else:
        head, body = shown.split("/", 1)
        if head in ("", ".", "~") and "/" in body:
            first, body = body.split("/", 1)
            head = f"{head}/{first}"
    *middle, name = body.split("/")
    if not middle:
        return shown
    while middle and len(f"{head}/…/{'/'.join(middle)}/{name}") > width:
        middle.pop(0)
    return f"{head}/…/" + "".join(f"{m}/" for m in middle) + name


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
