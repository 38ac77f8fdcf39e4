"""YAML loading that remembers the line of every key, so errors can point at `file:line`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .errors import config_error

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter: ~5x faster

PathKey = tuple[str | int, ...]


@dataclass(frozen=True)
class Located:
    """Parsed YAML data plus a map from key path to 1-based line number."""

    data: Any
    lines: dict[PathKey, int]
    file: str

    def line_of(self, path: PathKey) -> int | None:
        """Line of the deepest known prefix of `path` (a missing key points at its parent)."""
        for n in range(len(path), 0, -1):
            line = self.lines.get(tuple(path[:n]))
            if line is not None:
                return line
        return None


def _index(node: yaml.Node, prefix: PathKey, out: dict[PathKey, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            out[prefix + (key,)] = key_node.start_mark.line + 1
            _index(value_node, prefix + (key,), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[prefix + (i,)] = item.start_mark.line + 1
            _index(item, prefix + (i,), out)


def parse_yaml(text: str, file: str) -> Located:
    """Parse YAML text; syntax errors become a ConfigError naming the line."""
    loader = _Loader(text)
    try:  # one parse: the node tree gives the lines, the same tree is constructed into data
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise config_error(
            f"invalid YAML: {problem}",
            file=file,
            line=line,
            hint="check indentation and quoting on that line",
        ) from None
    finally:
        loader.dispose()
    lines: dict[PathKey, int] = {}
    if node is not None:
        _index(node, (), lines)
    return Located(data=data, lines=lines, file=file)


def load_yaml(path: Path) -> Located:
    """Read and parse a YAML file; a missing or unreadable file is a ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise config_error(f"cannot read file: {exc.strerror}", file=str(path), hint="check the path") from None
    return parse_yaml(text, str(path))


def dump_yaml(data: Any) -> str:
    """Dump data as block-style YAML with stable key order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
