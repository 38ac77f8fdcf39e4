"""srtctl override files: `base` deep-merged with each `override_*`, and `zip_override_*` zipped lists."""

from __future__ import annotations

import copy
from typing import Any

from srt_tui.core.errors import config_error
from srt_tui.core.spec.yamlio import Located


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Dicts recurse, lists and scalars replace, `null` deletes the key (srtctl semantics)."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _zip_leaves(tree: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], list[Any]]]:
    if isinstance(tree, dict):
        found: list[tuple[tuple[str, ...], list[Any]]] = []
        for key, value in tree.items():
            found.extend(_zip_leaves(value, path + (str(key),)))
        return found
    if isinstance(tree, list):
        return [(path, tree)]
    return []


def _set_path(tree: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = tree
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def expand_variants(data: dict[str, Any], src: Located) -> list[tuple[str, dict[str, Any]]]:
    """All variants of an override file: `base` first, then each override in file order."""
    base = data.get("base")
    if not isinstance(base, dict):
        raise config_error("`base:` must be a mapping", file=src.file, line=src.line_of(("base",)))
    base_name = str(base.get("name", "job"))
    variants: list[tuple[str, dict[str, Any]]] = [("base", copy.deepcopy(base))]
    for key, block in data.items():
        line = src.line_of((key,))
        if key == "base":
            continue
        if not isinstance(block, dict):
            raise config_error(f"`{key}` must be a mapping", file=src.file, line=line)
        if key.startswith("zip_override_"):
            group = key[len("zip_override_") :]
            leaves = _zip_leaves(block)
            if not leaves:
                raise config_error(
                    f"`{key}` contains no list values",
                    file=src.file,
                    line=line,
                    hint="give each zipped key a list of values",
                )
            lengths = {len(v) for _, v in leaves if len(v) != 1}
            if any(len(v) == 0 for _, v in leaves):
                raise config_error(f"`{key}` contains an empty list", file=src.file, line=line)
            if len(lengths) > 1:
                raise config_error(
                    f"`{key}` has incompatible zip lengths {sorted(lengths)}",
                    file=src.file,
                    line=line,
                    hint="make every list the same length or 1",
                )
            count = lengths.pop() if lengths else 1
            for i in range(count):
                over = copy.deepcopy(block)
                for path, values in leaves:
                    _set_path(over, path, values[i] if len(values) > 1 else values[0])
                merged = deep_merge(base, over)
                if "name" not in block:
                    merged["name"] = f"{base_name}_{group}_{i}"
                variants.append((f"{key}[{i}]", merged))
        elif key.startswith("override_"):
            merged = deep_merge(base, block)
            if "name" not in block:
                merged["name"] = f"{base_name}_{key[len('override_') :]}"
            variants.append((key, merged))
        else:
            raise config_error(
                f"unexpected top-level key `{key}` in an override file",
                file=src.file,
                line=line,
                hint="use `base`, `override_<name>` or `zip_override_<group>`",
            )
    return variants
