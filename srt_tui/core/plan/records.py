"""JSON documents as typed records: a frozen dataclass whose fields are the document's keys, written in
field order (`Record.to_json`) and read back by the same annotations (`Record.parse`).

Reading: a key that is absent or null takes the field's default, an unknown key is ignored (a newer
writer may add some), a value of the wrong type is a `DocError` naming its path (`processes[0].port`)
and what was expected. Readers are built once per annotation and cached, so a monitor reading the plans
of hundreds of jobs pays for the reading only.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, ClassVar, TypeVar, Union, get_args, get_origin, get_type_hints

#: field metadata: the record's keys are written into its parent's object (a router entry is its
#: process's keys plus its own)
FLAT = {"flat": True}
#: field metadata: the key must be present (null still reads as the default)
REQUIRED = {"required": True}
#: field metadata: the key is left out when its value is empty (only some processes have it)
OMIT_EMPTY = {"omit_empty": True}

R = TypeVar("R")


class DocError(ValueError):
    """A key of the wrong type, or a required key missing: its path in the document and what was expected.

    Raised where the value is read, without a path; each enclosing record or list adds its part as the
    error unwinds (`within`), so a document that reads cleanly never builds a path string."""

    def __init__(self, expected: str, found: object = MISSING) -> None:
        self.expected = expected
        self.missing = found is MISSING
        self.found = "" if found is MISSING else type_name(found)
        self._parts: list[str] = []
        super().__init__(expected)

    def within(self, part: str) -> DocError:
        """This error, one level further out (`name` of a record's key, `[i]` of a list item)."""
        self._parts.append(part)
        return self

    @property
    def key(self) -> str:
        """The key's path: `processes[0].port`."""
        return "".join(p if p.startswith("[") or i == 0 else f".{p}" for i, p in enumerate(reversed(self._parts)))

    def __str__(self) -> str:
        if self.missing:
            return f"key `{self.key}` is missing"
        return f"key `{self.key}`: expected {self.expected}, found {self.found}"


def type_name(value: object) -> str:
    """How a JSON value is named in a message: `a string`, `a list`, `null`."""
    names: dict[type, str] = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    names.update({int: "a number", float: "a number"})
    return "null" if value is None else names.get(type(value), type(value).__name__)


class Record:
    """A document record: `to_json` writes its fields in order, `parse` reads them by their annotations."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object, keys in field order."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("flat"):
                out.update(value.to_json())
            elif not (f.metadata.get("omit_empty") and not value):
                out[f.name] = _encode(value)
        return out

    @classmethod
    def parse(cls: type[R], raw: object) -> R:
        """The record from a parsed JSON object (a DocError names what does not fit)."""
        record: Any = cls  # a dataclass: hashable, the decoder's cache key
        decoded: R = _record_decoder(record)(raw)
        return decoded


def _encode(value: object) -> object:
    if isinstance(value, Record):
        return value.to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


Decoder = Callable[[object], Any]


def _scalar(kind: type, expected: str) -> Decoder:
    def decode(value: object) -> object:
        if type(value) is kind and (kind is not int or value >= 0):  # type: ignore[operator]
            return value  # the common case, first
        if isinstance(value, bool) is not (kind is bool):
            raise DocError(expected, value)
        if kind is str and isinstance(value, int):
            return str(value)  # a job id or a port written as a number
        if kind is float and isinstance(value, int):
            return value  # an int is a float to the type system; kept, so it is written back as read
        raise DocError(expected, value)

    return decode


_SCALARS: dict[object, tuple[Decoder, str]] = {
    str: (_scalar(str, "a string"), "strings"),
    int: (_scalar(int, "a non-negative integer"), "non-negative integers"),
    float: (_scalar(float, "a number"), "numbers"),
    bool: (_scalar(bool, "a boolean"), "booleans"),
}


def _any(value: object) -> object:
    return value


def _plural(tp: object) -> str:
    """What a list of ``tp`` is called in a message."""
    if tp in _SCALARS:
        return _SCALARS[tp][1]
    if get_origin(tp) in (Union, types.UnionType):
        return " or ".join(_plural(a) if a is not type(None) else "nulls" for a in get_args(tp))
    return "pairs" if get_origin(tp) is tuple else "objects"


@cache
def _decoder(tp: Any) -> Decoder:
    """The reader of one annotation (cached: a plan of hundreds of jobs reuses them)."""
    if tp in _SCALARS:
        return _SCALARS[tp][0]
    if tp is Any or tp is object:
        return _any
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        inner = _decoder(next(a for a in args if a is not type(None)))
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        return _list_decoder(args[0]) if len(args) == 2 and args[1] is Ellipsis else _fixed_decoder(args)
    if origin in (dict, Mapping):
        return _dict_decoder(args[1])
    if isinstance(tp, type) and is_dataclass(tp):
        return _record_decoder(tp)
    raise TypeError(f"no plan.json reader for {tp!r}")


def _items(read: Decoder, values: list[Any]) -> tuple[Any, ...]:
    """Each item read, an error naming its index."""
    out = []
    for i, v in enumerate(values):
        try:
            out.append(read(v))
        except DocError as exc:
            raise exc.within(f"[{i}]") from None
    return tuple(out)


def _list_decoder(item_type: Any) -> Decoder:
    read, expected = _decoder(item_type), f"a list of {_plural(item_type)}"
    plain = item_type if item_type in (str, float) else None  # a list of these needs no item read when all fit

    def decode(value: object) -> tuple[Any, ...]:
        if type(value) is not list:
            raise DocError(expected, value)
        if plain is not None and all(type(v) is plain for v in value):
            return tuple(value)
        return _items(read, value)

    return decode


def _fixed_decoder(args: tuple[Any, ...]) -> Decoder:
    reads = [_decoder(a) for a in args]
    expected = f"a list of {len(args)}"

    def decode(value: object) -> tuple[Any, ...]:
        if type(value) is not list or len(value) != len(reads):
            raise DocError(expected, value)
        out = []
        for i, (read, v) in enumerate(zip(reads, value)):
            try:
                out.append(read(v))
            except DocError as exc:
                raise exc.within(f"[{i}]") from None
        return tuple(out)

    return decode


def _dict_decoder(value_type: Any) -> Decoder:
    read = _decoder(value_type)

    def decode(value: object) -> dict[str, Any]:
        if type(value) is not dict:
            raise DocError("an object", value)
        out = {}
        for k, v in value.items():
            try:
                out[k] = read(v)
            except DocError as exc:
                raise exc.within(k) from None
        return out

    return decode


@cache
def _record_decoder(cls: Any) -> Decoder:
    hints = get_type_hints(cls)
    #: (key, reader, a type whose values are taken as they are, flat, required, default value, default factory)
    plan: list[tuple[str, Decoder, type | None, bool, bool, object, Callable[[], object] | None]] = []
    for f in fields(cls):
        factory = None if f.default_factory is MISSING else f.default_factory
        required = bool(f.metadata.get("required")) or (f.default is MISSING and factory is None)
        flat = bool(f.metadata.get("flat"))
        hint = hints[f.name]
        plain = next((t for t in (str, bool, float) if hint == t or hint == t | None), None)
        plan.append((f.name, _decoder(hint), plain, flat, required, f.default, factory))

    def decode(raw: object) -> object:
        if type(raw) is not dict:
            raise DocError("an object", raw)
        values: dict[str, object] = {}
        for name, read, plain, flat, required, default, factory in plan:
            value = raw if flat else raw.get(name)
            if type(value) is plain:
                values[name] = value
                continue
            if value is None:
                if required and name not in raw:
                    raise DocError("a value").within(name)
                values[name] = factory() if factory is not None else (None if default is MISSING else default)
                continue
            try:
                values[name] = read(value)
            except DocError as exc:
                raise (exc if flat else exc.within(name)) from None
        return cls(**values)

    return decode


__all__ = ["FLAT", "OMIT_EMPTY", "REQUIRED", "DocError", "Record", "type_name"]
