"""The house as ARCHITECTURE.md draws it: every import of every srt_tui module (function-local and
TYPE_CHECKING ones included) goes to its own tier or a lower one, and no import cycle exists between modules
or between units (packages of core/, monitor/, tui/, their root modules, and the top-level packages).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "srt_tui"
#: shipped into jobs as text, never imported by srt-tui
PAYLOAD = PACKAGE / "core" / "templates"
#: packages whose sub-packages and root modules are units of their own
ROOMED = ("core", "monitor", "tui")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py") if PAYLOAD not in p.parents}


def imports_of(name: str, path: Path, known: Mapping[str, Path]) -> Iterator[tuple[str, int]]:
    """Every srt_tui module `path` imports, with the line, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                full = f"{target}.{alias.name}"
                yield (full if full in known else target), node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno


def unit_of(name: str) -> str:
    """`srt_tui.core.plan.build` -> `core.plan`; `srt_tui.tui.app` -> `tui.app`; `srt_tui.slurm.local` -> `slurm`."""
    parts = name.split(".")[1:]
    if len(parts) < (2 if parts and parts[0] in ROOMED else 1):
        return "srt_tui"  # the package roots (docstrings, the version): below everything
    if parts[0] in ROOMED and len(parts) > 1:
        return ".".join(parts[:2])
    return parts[0]


def tiers() -> dict[str, int]:
    """ARCHITECTURE.md's ```tiers block: unit -> tier (0 is the floor)."""
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = re.search(r"```tiers\n(.*?)```", text, re.S)
    assert block, "ARCHITECTURE.md has no ```tiers block"
    return {unit: i for i, line in enumerate(block[1].strip().splitlines()) for unit in line.split()}


def tier_of(unit: str, table: Mapping[str, int]) -> int | None:
    if unit == "srt_tui":
        return -1
    if unit in table:
        return table[unit]
    if unit.startswith("tui.") and "tui.*" in table:
        return table["tui.*"]
    return None


def graph() -> dict[str, set[tuple[str, int]]]:
    known = modules()
    return {
        name: {(t, line) for t, line in imports_of(name, path, known) if t in known and t != name}
        for name, path in known.items()
    }


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_another_in_a_cycle() -> None:
    g = graph()
    assert cycles({m: {t for t, _ in ts} for m, ts in g.items()}) == []


def test_no_unit_imports_another_in_a_cycle() -> None:
    units: dict[str, set[str]] = {}
    for m, ts in graph().items():
        units.setdefault(unit_of(m), set()).update(unit_of(t) for t, _ in ts if unit_of(t) != unit_of(m))
    assert cycles(units) == []


def test_every_unit_has_a_tier() -> None:
    table = tiers()
    missing = sorted({unit_of(m) for m in modules()} - set(table) - {"srt_tui"})
    assert [u for u in missing if tier_of(u, table) is None] == []
    stale = sorted(u for u in table if u != "tui.*" and u not in {unit_of(m) for m in modules()})
    assert stale == [], f"ARCHITECTURE.md names units that do not exist: {stale}"


def test_imports_point_down_the_tiers() -> None:
    table = tiers()
    upward = []
    for m, ts in sorted(graph().items()):
        if m == "srt_tui":
            continue
        mine = tier_of(unit_of(m), table)
        for t, line in sorted(ts):
            theirs = tier_of(unit_of(t), table)
            if mine is not None and theirs is not None and theirs > mine:
                upward.append(
                    f"{modules()[m].relative_to(REPO)}:{line} imports {t} ({unit_of(t)} is above {unit_of(m)})"
                )
    assert upward == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_cycle_finder_finds_cycles(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected


def test_an_upward_import_is_reported(tmp_path: Path) -> None:
    """The tier check reads real imports: a core module importing the TUI would be caught."""
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from srt_tui.tui.app import SrtTuiApp\n")
    found = list(imports_of("srt_tui.core.spec.m", src, {"srt_tui.tui.app": src}))
    assert found == [("srt_tui.tui.app", 2)]
    table = tiers()
    assert tier_of(unit_of("srt_tui.tui.app"), table) > tier_of(unit_of("srt_tui.core.spec.m"), table)  # type: ignore[operator]
