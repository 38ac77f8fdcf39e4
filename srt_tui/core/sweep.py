"""srtctl's top-level `sweep:` blocks: a grid over parameter lists, `{param}` filled in every string.

Each member is named `<name>_<k1><v1>_<k2><v2>…` as srtctl names it, and is selected as `file.yaml:sweep[i]`.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from .errors import config_error
from .yamlio import Located


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
