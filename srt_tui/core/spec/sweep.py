"""srtctl's top-level `sweep:` blocks: a grid over parameter lists, `{param}` filled in every string.

Each member is named `<name>_<k1><v1>_<k2><v2>…` as srtctl names it, and is selected as `file.yaml:sweep[i]`.
srtctl expands a parameter no `{param}` uses, and a list that repeats a value, into copies of one job under
different names; srt-tui refuses both, naming the key and the fix (nothing a user writes is silently ignored).
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from srt_tui.core.errors import SrtError, config_error
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
    _refuse_placeholder_name(data.get("name"), block, src, prefix)
    body = {k: v for k, v in data.items() if k not in ("sweep", "name")}  # `name` is srtctl's, rewritten below
    for key in block:
        if not any("{" + str(key) + "}" in text for text in _strings(body)):
            raise _unused(key, block[key], body, src, prefix)
        twice = next((v for i, v in enumerate(block[key]) if v in block[key][:i]), None)
        if twice is not None:
            raise config_error(
                f"lists {_text(twice)} twice: two members would run the same job",
                field=".".join((*prefix, "sweep", str(key))),
                file=src.file,
                line=src.line_of((*prefix, "sweep", key)),
                hint="list each value once",
            )
    members: list[tuple[str, dict[str, Any]]] = []
    for label, params in sweep_params(block):
        member = fill({k: copy.deepcopy(v) for k, v in data.items() if k != "sweep"}, params)
        member["name"] = f"{data.get('name', 'job')}_" + "_".join(f"{k}{v}" for k, v in params.items())
        members.append((label, member))
    _refuse_copies(members, src, prefix)
    return members


def _refuse_placeholder_name(name: Any, block: dict[str, Any], src: Located, prefix: tuple[str, ...]) -> None:
    """A `{param}` in the sweep's `name:` is refused: srtctl does not fill it there (it names each member
    `<name>_<k><v>…` from the name as written, `osl-{osl}_osl8`), so the raw name failed the name check."""
    if not isinstance(name, str):
        return
    used = [str(k) for k in block if "{" + str(k) + "}" in name]
    if not used:
        return
    bare = name
    for key in used:
        bare = bare.replace("{" + key + "}", "")
    bare = "-".join(p for p in bare.replace("_", "-").split("-") if p).strip(".+") or "sweep"
    first = "_".join(f"{k}{v[0]}" for k, v in block.items())
    raise config_error(
        f"`{{{used[0]}}}` is not filled in a sweep's name: each job is named `<name>_{first}` (srtctl's way)",
        field=".".join((*prefix, "name")),
        file=src.file,
        line=src.line_of((*prefix, "name")),
        hint=f"name: {bare}   (the jobs: {bare}_{first}, …)",
    )


def sweep_params(block: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(`sweep[i]`, the member's value of each parameter) for every combination of a checked `sweep:` block's lists,
    in srtctl's order: what each member sweeps, recorded in its job.json so Results can order and plot by it."""
    names = list(block)
    return [(f"sweep[{i}]", dict(zip(names, combo))) for i, combo in enumerate(itertools.product(*block.values()))]


def _strings(data: Any) -> list[str]:
    """Every string value under ``data`` (mapping keys aside: srtctl fills values only)."""
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return [data] if isinstance(data, str) else []


def _leaves(data: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """(key path, value) of every entry of nested mappings, mappings included."""
    if not isinstance(data, dict):
        return []
    out: list[tuple[tuple[str, ...], Any]] = []
    for key, value in data.items():
        out.append(((*path, str(key)), value))
        out += _leaves(value, (*path, str(key)))
    return out


def _unused(key: str, values: list[Any], body: dict[str, Any], src: Located, prefix: tuple[str, ...]) -> SrtError:
    """The refusal of a parameter no `{key}` uses: every member would run the same job under its own name. The
    fix names the field it most likely meant (a key spelt like it), and says why when `{key}` was left unquoted
    (YAML reads `osl: {osl}` as a mapping, which srtctl does not fill)."""
    mark = "{" + key + "}"
    same = key.replace("-", "_")
    unquoted = [p for p, v in _leaves(body) if v == {key: None}]
    meant = [p for p, v in _leaves(body) if p[-1].replace("-", "_") == same and not isinstance(v, dict | list)]
    if unquoted:
        where = ".".join(unquoted[0])
        hint = f'quote it: `{unquoted[0][-1]}: "{mark}"` (YAML reads `{where}: {mark}` unquoted as a mapping)'
    else:
        example = f'e.g. `{".".join(meant[0])}: "{mark}"`' if meant else f'e.g. `some_field: "{mark}"`'
        hint = f"write `{mark}` in the field it should set, {example}, or remove `{key}` from `sweep:`"
    shown = ", ".join(f"{key}{v}" for v in values[:4]) + (" …" if len(values) > 4 else "")
    return config_error(
        f"no `{mark}` in the recipe uses this parameter: every member ({shown}) would be the same job under "
        "another name",
        field=".".join((*prefix, "sweep", key)),
        file=src.file,
        line=src.line_of((*prefix, "sweep", key)),
        hint=hint,
    )


def _refuse_copies(members: list[tuple[str, dict[str, Any]]], src: Located, prefix: tuple[str, ...]) -> None:
    """Two members that are the same job but for their names (a value listed twice, `{a}{b}` filled alike)."""
    seen: dict[str, tuple[str, str]] = {}
    for label, member in members:
        body = repr({k: v for k, v in member.items() if k != "name"})
        if body in seen:
            first, first_name = seen[body]
            raise config_error(
                f"{label} ({member['name']}) would run the same job as {first} ({first_name})",
                field=".".join((*prefix, "sweep")),
                file=src.file,
                line=src.line_of((*prefix, "sweep")),
                hint="change the values so that every member sets something different",
            )
        seen[body] = (label, str(member["name"]))


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
