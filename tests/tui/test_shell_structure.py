"""The TUI shell's structure: no import cycle inside srt_tui/tui, and screens never fish for the App.

The import graph counts every import, also those inside functions (lazy imports) and under
`if TYPE_CHECKING:`: a cycle through a type-only import is still two modules that each need the
other to be understood, which is what made the shell hard to change (tui/main.py ↔ launch_screen.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from srt_tui.widgets.layout import WIDE, is_wide
from tests.tui.tui_helpers import make_app

REPO = Path(__file__).resolve().parents[2]
TUI = REPO / "srt_tui" / "tui"


def module_name(path: Path, root: Path) -> str:
    """`srt_tui.tui.launch.screen` of `<root>/srt_tui/tui/launch/screen.py` (a package's `__init__` is the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path, known: set[str]) -> set[str]:
    """Every module of `known` that `path` imports, wherever the import statement is."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from pkg import mod` imports the module `pkg.mod` when there is one
            targets = [target] + [f"{target}.{alias.name}" for alias in node.names]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return out


def import_graph(package_dir: Path, root: Path) -> dict[str, set[str]]:
    """Module → modules of the same package tree it imports."""
    files = sorted(package_dir.rglob("*.py"))
    known = {module_name(f, root) for f in files}
    return {module_name(f, root): imports_of(f, root, known) for f in files}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (`[a, b, a]`), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_cycle_finder_sees_a_lazy_and_a_type_only_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "shell"
    (pkg / "mode").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "mode" / "__init__.py").write_text("")
    (pkg / "app.py").write_text("def make():\n    from .mode.screen import Screen\n    return Screen()\n")
    (pkg / "mode" / "screen.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..app import App\nclass Screen: ...\n"
    )
    cycle = find_cycle(import_graph(pkg, tmp_path))
    assert cycle is not None and set(cycle) == {"shell.app", "shell.mode.screen"}
    (pkg / "mode" / "screen.py").write_text("class Screen: ...\n")
    assert find_cycle(import_graph(pkg, tmp_path)) is None


def test_no_import_cycle_inside_the_tui_package() -> None:
    graph = import_graph(TUI, REPO)
    assert len(graph) > 20, sorted(graph)  # the walk found the package's modules
    assert "srt_tui.tui.launch.screen" in graph["srt_tui.tui.app"]  # and the lazy imports inside functions
    cycle = find_cycle(graph)
    assert cycle is None, " → ".join(cycle or [])


def test_no_module_of_the_shell_imports_the_app() -> None:
    """Screens get the app's context from the hub they are built with, never from the App class."""
    graph = import_graph(TUI, REPO)
    importers = sorted(m for m, deps in graph.items() if "srt_tui.tui.app" in deps)
    assert importers == []


def test_no_screen_fishes_for_the_app() -> None:
    pattern = re.compile(r"\b(isinstance|getattr|hasattr|cast)\([^)]*\bself\.app\b")
    hits = [
        f"{path.relative_to(REPO)}:{n}: {line.strip()}"
        for path in sorted(TUI.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []
    assert pattern.search("x = getattr(self.app.screen, 'y')") is not None  # the pattern does match a use


@pytest.mark.parametrize("width", [WIDE - 1, WIDE])
async def test_css_and_python_switch_to_the_wide_layout_at_the_same_width(width: int) -> None:
    """Between 100 and 109 columns the CSS (at 100) and the tables (at 110) used to disagree."""
    async with make_app(probe=None).run_test(size=(width, 30)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.has_class("-wide") is is_wide(width) is (width >= WIDE)
        assert screen.has_class("-narrow") is not is_wide(width)
