"""Writing a proposed profile over an existing file: what that file holds, and the keys the write loses or changes.

One rule for both faces of Setup: the TUI asks before such a write (`ConfirmOverwrite`), `srt-tui setup --probe
--write` refuses it unless `--force`; both name the same keys. A write that loses and changes nothing goes ahead.
Both say too when the file's `mpi_plugin` does not load on this cluster, and what the write puts instead
(`mpi_plugin_note`): the TUI asks then even when no key is lost or changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from srt_tui.setup.mpi import MpiProbe

#: the plugin a profile that names none runs its MPI steps with (srtctl's default, the Profile model's)
DEFAULT_MPI_PLUGIN = "pmix"


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


def file_mpi_plugin(old: dict[str, Any]) -> str | None:
    """The `mpi_plugin` the profile file ``old`` runs MPI steps with (the default when it names none); None when it
    names no plugin name (a damaged file)."""
    plugin = old.get("mpi_plugin", DEFAULT_MPI_PLUGIN)
    return plugin if isinstance(plugin, str) else None


def mpi_plugin_note(old: dict[str, Any], new: dict[str, Any], mpi: MpiProbe | None) -> str:
    """What the review says before writing over the profile file ``old`` when its `mpi_plugin` does not load on this
    cluster (its MPI steps, the Dynamo frontend and TRT-LLM workers, fail: `srt-tui doctor` flags it), and what the
    write puts instead; "" when the file has none of its own, its plugin loads, or this run could not tell."""
    plugin = file_mpi_plugin(old) if old else None
    why = mpi.why_not(plugin) if mpi is not None and plugin else None
    if why is None:
        return ""
    named = f"`mpi_plugin: {plugin}`" if "mpi_plugin" in old else f"`mpi_plugin` (unset: {plugin}, the default)"
    writes = f"`mpi_plugin: {new['mpi_plugin']}`" if "mpi_plugin" in new else f"no mpi_plugin ({DEFAULT_MPI_PLUGIN})"
    return f"the file's {named} does not load on this cluster ({why}): its MPI steps fail; this writes {writes}"
