"""The test suite's own contract: a fresh machine installs what the tests import, and CI never skips.

A module imported by the package or the tests but declared in no extra is an install step a fresh
machine misses (the suite then dies on import); a bare `pytest.skip` passes CI with the check unrun.
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import require

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    tomllib = None

REPO = Path(__file__).resolve().parents[2]
#: the one place each skip may happen: helpers that fail instead under CI=true
SKIP_HELPERS = {
    ("tests/conftest.py", "require"),
    ("tests/cluster.py", "_unavailable"),
    ("tests/core/core_helpers.py", "need"),
}


def _norm(name: str) -> str:
    return re.split(r"[\s<>=!~;\[(]", name.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _declared() -> set[str]:
    """Every distribution the pyproject declares (dependencies and every extra), transitively as installed."""
    assert tomllib is not None, "needs Python 3.11's tomllib"
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    todo = [_norm(r) for r in project.get("dependencies", [])]
    for extra in project.get("optional-dependencies", {}).values():
        todo += [_norm(r) for r in extra]
    seen: set[str] = set()
    while todo:
        dist = todo.pop()
        if dist in seen:
            continue
        seen.add(dist)
        with contextlib.suppress(metadata.PackageNotFoundError):
            todo += [_norm(r) for r in metadata.requires(dist) or [] if "extra ==" not in r]
    return seen


def _python_files() -> list[Path]:
    return [f for sub in ("srt_tui", "tests", "benchmarks", "scripts") for f in sorted((REPO / sub).rglob("*.py"))]


def test_every_third_party_import_is_declared() -> None:
    require(tomllib is not None, "reading pyproject.toml needs Python 3.11's tomllib")
    declared = _declared()
    dists = metadata.packages_distributions()
    own = {p.name for p in REPO.iterdir() if p.is_dir()}
    undeclared: dict[str, set[str]] = {}
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                mods = [node.module]
            else:
                continue
            for mod in mods:
                top = mod.split(".")[0]
                if top in sys.stdlib_module_names or top in own:
                    continue
                providers = {_norm(d) for d in dists.get(top, [])} | {_norm(top)}
                if not providers & declared:
                    undeclared.setdefault(top, set()).add(str(path.relative_to(REPO)))
    assert not undeclared, f"imported but declared in no pyproject extra: {undeclared}"


def test_no_bare_skip_outside_the_ci_aware_helpers() -> None:
    bare = []
    for path in (REPO / "tests").rglob("*.py"):
        rel = str(path.relative_to(REPO))
        tree = ast.parse(path.read_text())
        allowed = [
            range(f.lineno, (f.end_lineno or f.lineno) + 1)
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef) and (rel, f.name) in SKIP_HELPERS
        ]
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("skip", "skipif", "importorskip")
                and ast.unparse(node.value) in ("pytest", "pytest.mark")
                and not any(node.lineno in r for r in allowed)
            ):
                bare.append(f"{rel}:{node.lineno}")
    assert not bare, f"skip without a CI=true failure (use tests.conftest.require): {sorted(bare)}"


@pytest.mark.parametrize("helper", sorted(SKIP_HELPERS))
def test_skip_helpers_still_exist(helper: tuple[str, str]) -> None:
    rel, name = helper
    tree = ast.parse((REPO / rel).read_text())
    assert any(isinstance(n, ast.FunctionDef) and n.name == name for n in ast.walk(tree)), helper
