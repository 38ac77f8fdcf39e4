"""Writing a proposed profile over an existing file: what that file holds, and the keys the write loses or changes.

One rule for both faces of Setup: the TUI asks before such a write (`ConfirmOverwrite`), `srt-tui setup --probe
--write` refuses it unless `--force`; both name the same keys. A write that loses and changes nothing goes ahead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def existing_profile(target: Path) -> dict[str, Any]:
    """The mapping in the profile file at ``target``; empty when there is none or it is not a YAML mapping."""
    try:
        data = yaml.safe_load(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def _inline(value: Any) -> str:
    """A value on one line as YAML reads it (`null`, `{a: b}`), cut at 40 characters."""
    text = yaml.safe_dump(value, default_flow_style=True, width=1000).strip().removesuffix("...").strip()
    return text if len(text) <= 40 else text[:39] + "…"


def profile_changes(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[str], list[str]]:
    """What writing ``new`` over ``old`` does: the keys lost, and the keys changed (`key: old → new`)."""
    lost = [k for k in old if k not in new]
    changed = [f"{k}: {_inline(old[k])} → {_inline(new[k])}" for k in old if k in new and old[k] != new[k]]
    return lost, changed


def change_lines(lost: list[str], changed: list[str]) -> list[str]:
    """The keys a write loses and changes, one a line (`Lost: a, b`, `Changed: k: x → y`); none when neither."""
    return ([f"Lost: {', '.join(lost)}"] if lost else []) + [f"Changed: {c}" for c in changed]
