"""Architecture rules enforced by test: no vendor string decides behaviour anywhere in `srt_tui/`, and the
headless core imports neither Textual nor any network library (checked statically and at run time).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.core_helpers import REPO

PACKAGE = REPO / "srt_tui"
CORE = PACKAGE / "core"
VENDORS = {"amd", "nvidia", "rocm", "cuda"}
#: modules the core must never import (UI, HTTP clients and socket-level clients)
FORBIDDEN = (
    "textual",
    "rich",
    "httpx",
    "requests",
    "aiohttp",
    "urllib3",
    "urllib.request",
    "http.client",
    "socket",
    "websockets",
)
#: files under core/ that are shipped as text and run on the compute node, never imported by srt-tui
PAYLOADS = {CORE / "templates"}


def _vendor_literal(node: ast.AST) -> str | None:
    """The vendor name a literal (or a tuple/list/set of literals) names, if any."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip().lower() in VENDORS:
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for elt in node.elts:
            found = _vendor_literal(elt)
            if found:
                return found
    return None


def _names_vendor(node: ast.AST) -> bool:
    """`vendor`, `self.vendor`, `profile.vendor`, `gpu_vendor` …"""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return "vendor" in name.lower()


def vendor_decisions(source: str, filename: str = "<string>") -> list[str]:
    """Every place where a vendor string or a `vendor` value decides behaviour in Python source."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            lit = next((v for v in map(_vendor_literal, operands) if v), None)
            if lit:
                found.append(f"{where}: comparison with {lit!r}")
            elif any(_names_vendor(o) for o in operands) and any(
                isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in node.ops
            ):
                found.append(f"{where}: comparison on a vendor value")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("startswith", "endswith", "__eq__", "count", "find", "index") and any(
                _vendor_literal(a) for a in node.args
            ):
                found.append(f"{where}: .{node.func.attr}() with a vendor string")
        elif isinstance(node, ast.match_case) and _vendor_literal(getattr(node.pattern, "value", ast.Pass())):
            found.append(f"{where}: match case on a vendor string")
        elif isinstance(node, ast.Dict) and any(k is not None and _vendor_literal(k) for k in node.keys):
            found.append(f"{where}: dict keyed by vendor (a lookup by vendor decides behaviour)")
    return found


def _python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize(
    "snippet",
    [
        'if vendor == "amd":\n    x = 1',
        'if profile.gpu_vendor != "nvidia": pass',
        'x = "ROCm".lower() in ("rocm", "hip")',
        'ok = name.startswith("cuda")',
        'env = {"amd": "ROCR_VISIBLE_DEVICES", "nvidia": "CUDA_VISIBLE_DEVICES"}[kind]',
        'match v:\n    case "amd":\n        pass',
        'if "AMD" == p.kind: pass',
    ],
)
def test_detector_catches_vendor_decisions(snippet: str) -> None:
    assert vendor_decisions(snippet), f"detector missed: {snippet!r}"


@pytest.mark.parametrize(
    "snippet",
    ["var = profile.visible_devices_env", 'doc = "works on AMD and NVIDIA"', 'tools = ["amd-smi", "nvidia-smi"]'],
)
def test_detector_ignores_data_and_prose(snippet: str) -> None:
    assert vendor_decisions(snippet) == []


def test_no_vendor_string_decides_behaviour_in_srt_tui() -> None:
    files = _python_files(PACKAGE)
    assert len(files) > 20, "srt_tui sources not found"
    found = [
        hit for path in files for hit in vendor_decisions(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    ]
    assert not found, "vendor decisions belong in profiles:\n" + "\n".join(found)


def _is_payload(path: Path) -> bool:
    return any(parent in PAYLOADS for parent in path.parents)


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if func in ("import_module", "__import__"):
                names.append(str(node.args[0].value))
    return names


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def test_core_imports_statically_no_ui_or_network_library() -> None:
    bad = [
        f"{path.relative_to(REPO)}: {name}"
        for path in _python_files(CORE)
        if not _is_payload(path)
        for name in _imports(path)
        if _forbidden(name)
    ]
    assert not bad, "srt_tui.core must stay headless and offline:\n" + "\n".join(bad)


def test_core_relative_imports_stay_inside_core() -> None:
    """`from ..tui import x` from inside core would bypass the static scan above: forbid leaving the package."""
    bad = []
    for path in _python_files(CORE):
        if _is_payload(path):
            continue
        depth = len(path.relative_to(CORE).parts) - 1  # 0 for core/x.py, 1 for core/engines/x.py
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level > depth + 1:
                bad.append(f"{path.relative_to(REPO)}:{node.lineno}: from {'.' * node.level}{node.module or ''}")
            module = node.module or ""
            if module.startswith("srt_tui.") and not module.startswith("srt_tui.core"):
                bad.append(f"{path.relative_to(REPO)}:{node.lineno}: from {module}")
    assert not bad, "core imports another layer:\n" + "\n".join(bad)


_RUNTIME_CHECK = """
import sys
before = set(sys.modules)
import importlib, json, pkgutil
import srt_tui.core as core
names = sorted(m.name for m in pkgutil.walk_packages(core.__path__, "srt_tui.core."))
for name in names:
    importlib.import_module(name)
from srt_tui.core.api import prepare
from srt_tui.core.text.dryrun import describe
from srt_tui.core.jobdir.write import job_files
for recipe, profile in json.loads(sys.argv[1]):
    prep = prepare(recipe, profile)
    describe(prep)
    job_files(prep.job, prep.plan, prep.script)
print(json.dumps({"imported": names, "modules": sorted(set(sys.modules) - before)}))
"""


def test_core_imports_at_run_time_no_ui_or_network_library(tmp_path: Path) -> None:
    """Import every core module and render a recipe in a fresh interpreter; then inspect sys.modules."""
    recipes = [
        [str(REPO / "recipes" / "mocker" / "mocker-2p1d.yaml"), "local"],
        [str(REPO / "recipes" / "amd" / "mi300x-vllm-moriio-colocated.yaml"), "amd-mi300x"],
    ]
    proc = subprocess.run(
        [sys.executable, "-c", _RUNTIME_CHECK, json.dumps(recipes)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "srt_tui.core.plan.model" in result["imported"] and "srt_tui.core.engines.vllm" in result["imported"]
    # `socket` itself comes in through the standard library (email.utils via pydantic's importlib.metadata);
    # the static scan above keeps core from using it, here only UI and client libraries count
    loaded = [m for m in result["modules"] if _forbidden(m) and m.split(".")[0] != "socket"]
    assert not loaded, f"srt_tui.core pulled in {loaded}"
    assert not [m for m in result["modules"] if m.startswith("srt_tui.") and not m.startswith("srt_tui.core")]
