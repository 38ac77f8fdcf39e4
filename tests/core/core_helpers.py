"""Shared helpers of the core tests: shipped inputs, the real console script, rendering, placeholders."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
RECIPES_DIR = REPO / "recipes"
PROFILES_DIR = REPO / "profiles"
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

#: every GPU visibility variable a shipped profile may name (the test reads which one from the profile file)
MASK_VARIABLES = ("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")


def need(condition: bool, reason: str) -> None:
    """Skip when a tool or input is missing, but fail under CI=true (a missing tool must not pass CI)."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: required)")
    pytest.skip(reason)


_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def raw_yaml(path: Path) -> Any:
    """A YAML file as plain data, read without srt-tui's loaders (the independent view of the input)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)  # noqa: S506 - a safe loader


def shipped_recipes() -> list[Path]:
    """Every shipped recipe file."""
    return sorted(RECIPES_DIR.rglob("*.yaml"))


def shipped_pairs() -> list[tuple[Path, str]]:
    """(recipe, profile) for every profile each shipped recipe declares."""
    pairs = []
    for path in shipped_recipes():
        for profile in raw_yaml(path).get("profiles") or []:
            pairs.append((path, str(profile)))
    return pairs


def pair_id(recipe: Path, profile: str) -> str:
    """Stable id `recipe-stem@profile` (also the golden file stem)."""
    return f"{recipe.stem}@{profile}"


def profile_data(name: str) -> dict[str, Any]:
    """A shipped profile file as plain data."""
    data = raw_yaml(PROFILES_DIR / f"{name}.yaml")
    assert isinstance(data, dict)
    return data


def mask_variable(profile: str) -> str:
    """The visibility variable a shipped profile names (srtctl's NVIDIA default when absent)."""
    return str(profile_data(profile).get("visible_devices_env", "CUDA_VISIBLE_DEVICES"))


def console_script() -> Path:
    """The installed `srt-tui` console script (the real entry point, not `python -m`)."""
    beside = Path(sys.executable).with_name("srt-tui")
    if beside.is_file():
        return beside
    found = shutil.which("srt-tui")
    need(found is not None, "the srt-tui console script is not installed (pip install -e .)")
    return Path(str(found))


def cli(*args: str, cwd: Path, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `srt-tui ARGS` in `cwd` with an isolated config dir; returns the finished process."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("SRTSLURM_CONFIG", "SRT_TUI_CONFIG_DIR")}
    full_env["SRT_TUI_CONFIG_DIR"] = str(cwd / ".srt-tui-config")
    full_env.update(env or {})
    return subprocess.run(
        [str(console_script()), *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def write_yaml(path: Path, data: Any) -> Path:
    """Write plain data as YAML (tests build recipes and profiles this way)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


_PLACEHOLDER = re.compile(r"<(ip:node(\d+)|host:node(\d+)|bind|logs|job_id|job_dir|scratch)>")


def substitute(text: str, values: Mapping[str, str], node_ips: list[str], node_names: list[str]) -> str:
    """Replace plan placeholders (`<ip:nodeK>`, `<bind>`, `<logs>`, ...) the way the running job defines them."""

    def repl(m: re.Match[str]) -> str:
        if m.group(2) is not None:
            return node_ips[int(m.group(2))]
        if m.group(3) is not None:
            return node_names[int(m.group(3))]
        return values[m.group(1)]

    return _PLACEHOLDER.sub(repl, text)


def flag_value(argv: list[str] | tuple[str, ...], flag: str) -> str | None:
    """The word after `flag` in an argv, or None."""
    argv = list(argv)
    return argv[argv.index(flag) + 1] if flag in argv else None


def preflight_recipe(tmp_path: Path, model: Path) -> Path:
    """A one-worker SGLang recipe `pf` whose model is ``model`` and whose container `img.sqsh` in ``tmp_path`` does not
    exist yet: the paths `preflight` checks from the login node."""
    data = {
        "name": "pf",
        "model": {"path": str(model), "container": str(tmp_path / "img.sqsh")},
        "engine": "sglang",
        "roles": {"agg": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}}},
        "frontend": {"type": "sglang-router"},
    }
    return write_yaml(tmp_path / "pf.yaml", data)
