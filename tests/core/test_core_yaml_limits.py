"""Hostile YAML is refused before it is expanded, with bounded memory: alias bombs, deep nesting, cycles, huge
files.

The dangerous inputs run through the real CLI in a subprocess with a 1 GiB address-space limit and a 20 s
deadline, so a regression that expands them fails the test (MemoryError, a traceback, or the deadline) instead
of taking the machine down. How fast the refusal is belongs to the machine, not to an assert here.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.core.errors import ConfigError
from srt_tui.core.spec.yamlio import MAX_BYTES, MAX_NODES, parse_yaml


def billion_laughs(levels: int = 9) -> str:
    """The classic bomb: each level is nine aliases of the one before (9**levels strings)."""
    text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    prev = "a"
    for name in "bcdefghijklmnop"[: levels - 1]:
        text += f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]\n"
        prev = name
    return text


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _dry_run(recipe: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "dry-run", "-f", str(recipe), "-p", "local"],
        capture_output=True,
        text=True,
        timeout=20,
        preexec_fn=_limit_memory,
    )


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("bomb", billion_laughs(), "YAML bomb"),
        ("deep", "a: " + "[" * 100_000 + "]" * 100_000 + "\n", "nesting deeper than"),
        ("deep-maps", "".join(f"{' ' * i}k{i}:\n" for i in range(200)) + " " * 200 + "x: 1\n", "nesting deeper"),
        ("cycle", "name: x\nroles: &r [*r]\n", "inside its own anchor"),
        ("huge", "name: x\ndescription: '" + "x" * (MAX_BYTES + 10) + "'\n", "larger than"),
    ],
    ids=["bomb", "deep", "deep-maps", "cycle", "huge"],
)
def test_hostile_yaml_is_refused_fast_with_one_line(tmp_path: Path, name: str, text: str, says: str) -> None:
    recipe = tmp_path / f"{name}.yaml"
    recipe.write_text(text)
    proc = _dry_run(recipe)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert says in proc.stderr and str(recipe) in proc.stderr


def test_bomb_is_refused_in_process_before_its_aliases_are_expanded() -> None:
    text = billion_laughs()
    with pytest.raises(ConfigError, match="YAML bomb"):  # expanded, its 387 million strings would not fit
        parse_yaml(text, "bomb.yaml")


def test_ordinary_anchors_and_a_large_expansion_below_the_limit_still_load() -> None:
    text = "defaults: &d {tp: 4, mem: 0.8}\nprefill: {<<: *d, tp: 2}\ndecode: *d\nlist: &l [1, 2, 3]\nagain: *l\n"
    data = parse_yaml(text, "ok.yaml").data
    assert data["prefill"] == {"tp": 2, "mem": 0.8} and data["decode"] == {"tp": 4, "mem": 0.8}
    assert data["again"] == [1, 2, 3]
    wide = "a: &a [" + ", ".join(["1"] * 1000) + "]\nb: [" + ", ".join(["*a"] * (MAX_NODES // 1000 - 2)) + "]\n"
    assert len(parse_yaml(wide, "wide.yaml").data["b"]) == MAX_NODES // 1000 - 2
