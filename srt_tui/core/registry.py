"""The adapter registries: every engine, router and benchmark type srt-tui runs, by the name a recipe gives it.

An adapter registers itself (`register`: `core/engines`, `core/frontends/routers` and `core/benchmark/types`
do it for the built-ins, a new adapter's own module for itself), and everything else reads these tables: the
recipe's `engine.type` is checked against them, the planner looks adapters up in them. They live on the floor
so the spec can check names without importing the adapters' tiers; the packages holding the built-ins are
named once (`HOMES`) and imported on the first look-up, so a recipe read before any adapter was imported
still sees them.
"""

from __future__ import annotations

import importlib
from typing import Literal, TypeVar, cast

#: the kinds of adapter a recipe names
Kind = Literal["engine", "router", "benchmark"]

#: the package whose import registers the built-in adapters of each kind
HOMES: dict[Kind, str] = {
    "engine": "srt_tui.core.engines",
    "router": "srt_tui.core.frontends.routers",
    "benchmark": "srt_tui.core.benchmark.types",
}

_TABLES: dict[Kind, dict[str, object]] = {kind: {} for kind in HOMES}
_loaded: set[Kind] = set()

T = TypeVar("T")


def register(kind: Kind, name: str, adapter: T) -> T:
    """Add an adapter under its name; a second adapter under a taken name is a programming error."""
    table = _TABLES[kind]
    if table.get(name, adapter) is not adapter:
        raise ValueError(f"a {kind} named {name!r} is already registered ({type(table[name]).__name__})")
    table[name] = adapter
    return adapter


def unregister(kind: Kind, name: str) -> None:
    """Remove an adapter (a test's own fake, once the test is done)."""
    _TABLES[kind].pop(name, None)


def table(kind: Kind, of: type[T]) -> dict[str, T]:
    """The live table of one kind (name -> adapter, in registration order), built-ins loaded."""
    _load(kind)
    return cast("dict[str, T]", _TABLES[kind])


def names(kind: Kind) -> tuple[str, ...]:
    """The registered names of one kind, in registration order (built-ins first)."""
    _load(kind)
    return tuple(_TABLES[kind])


def _load(kind: Kind) -> None:
    """Import the kind's home package once: its import registers the built-ins."""
    if kind not in _loaded:
        _loaded.add(kind)
        importlib.import_module(HOMES[kind])
