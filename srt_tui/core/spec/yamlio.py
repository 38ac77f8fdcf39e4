"""YAML loading that remembers the line of every key, so errors can point at `file:line`.

Input is bounded before it is built: a file larger than MAX_BYTES, nesting deeper than MAX_DEPTH
(libyaml's composer recurses and would crash the process) or aliases expanding to more than
MAX_NODES nodes (a "billion laughs" bomb) is refused by one streaming pass over the parser's events.
"""

from __future__ import annotations

import dataclasses
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from srt_tui.core.errors import ConfigError, config_error

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter: ~5x faster

PathKey = tuple[str | int, ...]

MAX_BYTES = 1 << 20  #: the largest srtctl recipe is ~11 KB; a megabyte is a mistake or an attack
MAX_DEPTH = 64
MAX_NODES = 100_000  #: after alias expansion


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


def _index(node: yaml.Node, prefix: PathKey, out: dict[PathKey, int], depth: int = 1) -> None:
    """Record the line of every key path; refuse nesting deeper than MAX_DEPTH on the way (the composed
    tree of a text without anchors is bounded here, see `_bounded_after`)."""
    if isinstance(node, yaml.CollectionNode) and depth > MAX_DEPTH:
        raise _too_deep(node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            out[prefix + (key,)] = key_node.start_mark.line + 1
            _index(value_node, prefix + (key,), out, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[prefix + (i,)] = item.start_mark.line + 1
            _index(item, prefix + (i,), out, depth + 1)
    if len(out) > MAX_NODES:
        raise _too_many(node.start_mark.line + 1)


def _too_deep(line: int | None) -> ConfigError:
    """Too deep a tree (parse_yaml names the file)."""
    return config_error(f"nesting deeper than {MAX_DEPTH} levels", line=line, hint="flatten")


def _too_many(line: int | None) -> ConfigError:
    """Too many values (parse_yaml names the file)."""
    return config_error(
        f"aliases expand to more than {MAX_NODES} values (a YAML bomb?)",
        line=line,
        hint="write the values out instead of nesting aliases",
    )


#: nesting libyaml's (recursive, C) composer builds safely before `_index` checks it against MAX_DEPTH
_COMPOSE_SAFE_DEPTH = 2000


def _bounded_after(text: str) -> bool:
    """May this text be composed first and bounded on its node tree? Without an anchor nothing expands, and
    its nesting is at most two block levels per column plus one per flow bracket: a few hundred for a recipe."""
    if "&" in text:
        return False
    longest = max(map(len, text.splitlines()), default=0)
    return 2 * (longest + 1) + text.count("[") + text.count("{") <= _COMPOSE_SAFE_DEPTH


def check_duplicates(node: yaml.Node, file: str) -> None:
    """Refuse a key written twice in one mapping, naming both lines (YAML keeps the last silently, so a
    second `partition:` further down a shared recipe would win unseen). Runs before construction: merge
    keys (`<<: *base`) are not duplicates, and constructing them rewrites the node's mappings."""
    seen_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, PathKey]] = [(node, ())]
    while stack:
        current, path = stack.pop()
        if id(current) in seen_nodes:
            continue
        seen_nodes.add(id(current))
        if isinstance(current, yaml.MappingNode):
            first: dict[tuple[str, str], int] = {}
            for key_node, value_node in current.value:
                key = str(key_node.value)
                if isinstance(key_node, yaml.ScalarNode) and key != "<<":
                    line = key_node.start_mark.line + 1
                    same = (key_node.tag, key if key_node.tag.endswith(":str") else key.lower())
                    earlier = first.get(same)
                    if earlier is not None:
                        where = f"on line {line}" if earlier == line else f"on lines {earlier} and {line}"
                        raise config_error(
                            f"key `{key}` is written twice, {where}",
                            field=".".join(str(p) for p in (*path, key)),
                            file=file,
                            line=line,
                            hint="keep one of them (YAML would silently keep only the last)",
                        )
                    first[same] = line
                stack.append((value_node, (*path, key)))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend((item, (*path, i)) for i, item in enumerate(current.value))


def check_bounds(text: str, file: str) -> None:
    """Refuse oversized text, deep nesting and alias bombs, in time and memory linear in the text."""
    if len(text) > MAX_BYTES:
        raise config_error(f"file is larger than {MAX_BYTES} bytes", file=file, hint="a recipe or profile is a few KB")
    sizes: dict[str, int] = {}  # anchor -> the number of values its node expands to
    stack: list[list[Any]] = [[None, 0]]  # open collections: [anchor, values so far]
    total = 0  # values of the whole document, every alias expanded
    loader = _Loader(text)
    next_event: Callable[[], yaml.Event | None] = loader.get_event
    try:
        while (event := next_event()) is not None:
            line = event.start_mark.line + 1 if event.start_mark else None
            if isinstance(event, yaml.CollectionEndEvent):
                anchor, size = stack.pop()
                if anchor is not None:
                    sizes[anchor] = size
                stack[-1][1] += size
                continue
            if isinstance(event, yaml.CollectionStartEvent):
                stack.append([event.anchor, 1])
                if len(stack) > MAX_DEPTH:
                    raise config_error(f"nesting deeper than {MAX_DEPTH} levels", file=file, line=line, hint="flatten")
                size = 1
            elif isinstance(event, yaml.AliasEvent):
                if any(entry[0] == event.anchor for entry in stack):
                    raise config_error(f"alias *{event.anchor} is inside its own anchor", file=file, line=line)
                size = sizes.get(event.anchor or "", 0)
                stack[-1][1] += size
            elif isinstance(event, yaml.ScalarEvent):
                size = 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                stack[-1][1] += size
            else:
                continue
            total += size
            if total > MAX_NODES:
                raise config_error(
                    f"aliases expand to more than {MAX_NODES} values (a YAML bomb?)",
                    file=file,
                    line=line,
                    hint="write the values out instead of nesting aliases",
                )
    except yaml.YAMLError:
        return  # the real parse reports syntax errors with their line
    finally:
        loader.dispose()


def parse_yaml(text: str, file: str) -> Located:
    """Parse YAML text; syntax errors become a ConfigError naming the line."""
    if len(text) > MAX_BYTES or not _bounded_after(text):
        check_bounds(text, file)  # anchors or extreme nesting: bounded on the event stream, before composing
    loader = _Loader(text)
    lines: dict[PathKey, int] = {}
    try:  # one parse: the node tree gives the lines, the same tree is constructed into data
        node = loader.get_single_node()
        if node is not None:
            check_duplicates(node, file)
            _index(node, (), lines)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        if isinstance(exc, yaml.reader.ReaderError):  # a control character: no mark, a character offset
            line = text.count("\n", 0, exc.position) + 1
        problem = (getattr(exc, "problem", None) or str(exc)).splitlines()[0]
        raise config_error(
            f"invalid YAML: {problem}",
            file=file,
            line=line,
            hint="check indentation and quoting on that line",
        ) from None
    except ConfigError as exc:  # a bound `_index` found: name the file
        exc.problems = [dataclasses.replace(p, file=file) for p in exc.problems]
        raise
    finally:
        loader.dispose()
    return Located(data=data, lines=lines, file=file)


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))  # fmt: skip


def read_text_file(path: Path) -> str:
    """A regular UTF-8 file's text, at most MAX_BYTES; anything else is a ConfigError saying what it is."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise config_error(f"cannot read file: {exc.strerror}", file=str(path), hint="check the path") from None
    kind = next((name for test, name in _KINDS if test(mode)), None)
    if kind is not None:
        raise config_error(f"this is {kind}, not a YAML file", file=str(path), hint="give the path of a .yaml file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise config_error(f"cannot read file: {exc.strerror}", file=str(path), hint="check the path") from None
    if len(raw) > MAX_BYTES:
        raise config_error(
            f"file is larger than {MAX_BYTES} bytes", file=str(path), hint="a recipe or profile is a few KB"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise config_error(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            file=str(path),
            line=line,
            hint="is this the right file? save it as UTF-8",
        ) from None


def load_yaml(path: Path) -> Located:
    """Read and parse a YAML file; a missing, unreadable, binary or oversized file is a ConfigError."""
    return parse_yaml(read_text_file(path), str(path))


def dump_yaml(data: Any) -> str:
    """Dump data as block-style YAML with stable key order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
