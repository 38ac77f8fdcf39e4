"""srtctl's top-level `sweep:` blocks: a grid over parameter lists, `{param}` filled in every string.

Each member is named `<name>_<k1><v1>_<k2><v2>…` as srtctl names it, and is selected as `file.yaml:sweep[i]`.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from srt_tui.core.errors import config_error
from srt_tui.core.spec.yamlio import Located


def fill(template: Any, values: dict[str, Any]) -> Any:
    """`{param}` replaced everywhere; a string that is exactly `{param}` of a list value becomes the list."""
    if isinstance(template, dict):
        return {k: fill(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, values) for v in template]
    if not isinstance(template, str):
        return template
    out = template
    for key, value in values.items():
        mark = "{" + key + "}"
        if isinstance(value, list):
            if out == mark:
                return value
            out = out.replace(mark, ",".join(str(v) for v in value))
        else:
            out = out.replace(mark, str(value))
    return out


def expand_sweep(data: dict[str, Any], src: Located, prefix: tuple[str, ...] = ()) -> list[tuple[str, dict[str, Any]]]:
    """(`sweep[i]`, member data) for every combination of the sweep's lists, in srtctl's order."""
    block = data.get("sweep")
    line = src.line_of((*prefix, "sweep"))
    if not isinstance(block, dict) or not block:
        raise config_error("`sweep:` must map parameter names to lists of values", file=src.file, line=line)
    for key, values in block.items():
        if not isinstance(values, list) or not values:
            raise config_error(
                f"sweep parameter `{key}` must be a non-empty list",
                file=src.file,
                line=src.line_of((*prefix, "sweep", key)),
                hint=f"write e.g. `{key}: [1, 2]`",
            )
    names = list(block)
    members = []
    for i, combo in enumerate(itertools.product(*(block[k] for k in names))):
        params = dict(zip(names, combo))
        member = fill({k: copy.deepcopy(v) for k, v in data.items() if k != "sweep"}, params)
        member["name"] = f"{data.get('name', 'job')}_" + "_".join(f"{k}{v}" for k, v in params.items())
        members.append((f"sweep[{i}]", member))
    return members


def describe(members: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """One line per member: its selector and job name."""
    return [f"{label}: {data['name']}" for label, data in members]


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """Leaves of nested mappings as dotted paths (lists are leaves: a sweep value may be a list)."""
    if not isinstance(data, dict):
        return {prefix: data}
    out: dict[str, Any] = {}
    for key, value in data.items():
        out.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def _text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return str(value)


def differing_values(members: list[tuple[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """The keys whose values differ between members (``name`` aside) and each member's values for them.

    Keys that vary together (a sweep parameter filled into prefill's and decode's args) share one column,
    named by the first such key and how many more carry the same values.
    """
    flat = [_flatten(data) for _, data in members]
    keys = list(dict.fromkeys(k for f in flat for k in f if k != "name"))
    columns: dict[tuple[str, ...], list[str]] = {}
    for key in keys:
        values = tuple(_text(f.get(key)) for f in flat)
        if len(set(values)) > 1:
            columns.setdefault(values, []).append(key)
    header = [ks[0] + (f" (+{len(ks) - 1})" if len(ks) > 1 else "") for ks in columns.values()]
    rows = [[values[i] for values in columns] for i in range(len(members))]
    return header, rows
