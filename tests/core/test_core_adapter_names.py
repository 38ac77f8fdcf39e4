"""No engine, router or benchmark-type name decides behaviour outside its own adapter module: code reads the
adapter's declared capabilities instead (`if router.serves_directly`, not `if router.name == "direct"`).

The detector flags a comparison (or a `match` case) between a registered name and an expression that names
an adapter (`….type`, `engine`, `router`, `frontend`, `runs`, `router.name`, …); the module whose class
declares that `name` may compare against it. Comparisons of capability values that happen to be spelt like a
name (`worker_launch == "dynamo"`, a mock's `flavor == "vllm"`) are not adapter names and pass.
"""

from __future__ import annotations

import ast

import pytest

from srt_tui.core import registry
from srt_tui.core.spec.frontend_types import FRONTEND_TYPES
from tests.core.core_helpers import REPO

PACKAGE = REPO / "srt_tui"
#: identifiers under which code holds an adapter or the name of one
ADAPTER_FIELDS = frozenset({"type", "engine", "router", "frontend", "runs", "backend", "benchmark", "written"})


def adapter_names() -> frozenset[str]:
    """Every registered engine, router and benchmark type, and every `frontend.type` spelling but `none`."""
    names = {name for kind in registry.HOMES for name in registry.names(kind)} | set(FRONTEND_TYPES)
    return frozenset(names - {"none"})


def _tail(node: ast.AST) -> str | None:
    """The last identifier of `a.b.c` / `c` (None for anything else)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _names_adapter(node: ast.AST) -> bool:
    """`x.type`, `engine`, `self.runs`, `engine_type`, `router.name`, …"""
    tail = _tail(node)
    if tail is None:
        return False
    if tail == "name" and isinstance(node, ast.Attribute):
        return _names_adapter(node.value)
    return tail in ADAPTER_FIELDS or tail.endswith("_type")


def _literal_names(node: ast.AST, names: frozenset[str]) -> list[str]:
    """The registered names a string literal (or a tuple/list/set of them) spells."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [n for elt in node.elts for n in _literal_names(elt, names)]
    return []


def _declared_names(tree: ast.AST) -> set[str]:
    """Names the module's classes declare as their own (`name: ClassVar[str] = "x"` or `name = "x"`)."""
    out: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for stmt in cls.body:
            target: ast.expr | None = None
            if isinstance(stmt, ast.AnnAssign):
                target = stmt.target
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
            value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(target, ast.Name) and target.id == "name" and isinstance(value, ast.Constant):
                out.add(str(value.value))
    return out


def name_decisions(source: str, names: frozenset[str], filename: str = "<string>") -> list[str]:
    """Every place where an adapter's name, outside the module declaring it, decides behaviour."""
    tree = ast.parse(source, filename)
    own = _declared_names(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for operand in operands:
                spelt = [n for n in _literal_names(operand, names) if n not in own]
                if spelt and any(_names_adapter(o) for o in operands if o is not operand):
                    found.append(f"{filename}:{node.lineno}: comparison with {spelt[0]!r}")
                    break
        elif isinstance(node, ast.Match) and _names_adapter(node.subject):
            for case in node.cases:
                value = getattr(case.pattern, "value", None)
                spelt = [n for n in _literal_names(value, names) if n not in own] if value is not None else []
                if spelt:
                    found.append(f"{filename}:{case.pattern.lineno}: match case {spelt[0]!r}")
    return found


NAMES = frozenset({"sglang", "vllm", "direct", "dynamo", "custom", "sa-bench"})


@pytest.mark.parametrize(
    "snippet",
    [
        'if self.type == "atom" or engine.type == "sglang": pass',
        'if recipe.engine.type == "vllm": pass',
        'if engine != "sglang": pass',
        'if router.name == "direct": pass',
        'if self.runs == "direct": pass',
        'if b.type in ("custom", "sa-bench"): pass',
        'match job.frontend_type:\n    case "dynamo":\n        pass',
    ],
)
def test_detector_catches_name_decisions(snippet: str) -> None:
    assert name_decisions(snippet, NAMES | {"atom"}), f"detector missed: {snippet!r}"


@pytest.mark.parametrize(
    "snippet",
    [
        'if ctx.worker_launch == "dynamo": pass',
        'if config.flavor == "vllm": pass',
        'if dataset == "custom": pass',
        'if p.name == "router": pass',
        'doc = "runs behind sglang-router"',
        'frontends = frozenset({"sglang", "direct"})',
        'class Direct:\n    name = "direct"\n    def f(self, router):\n        return router.name == "direct"',
    ],
)
def test_detector_ignores_capabilities_data_and_the_own_module(snippet: str) -> None:
    assert name_decisions(snippet, NAMES | {"router"}) == []


def test_no_adapter_name_decides_behaviour_outside_its_module() -> None:
    names = adapter_names()
    assert {"sglang", "vllm", "dynamo", "direct", "sa-bench", "custom", "manual"} <= names
    files = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    found = [
        hit
        for path in files
        for hit in name_decisions(path.read_text(encoding="utf-8"), names, str(path.relative_to(REPO)))
    ]
    assert not found, "declare a capability on the adapter instead:\n" + "\n".join(found)
