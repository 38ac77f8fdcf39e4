"""Every shipped recipe renders on every profile it declares; scripts pass `bash -n` and shellcheck;
golden files pin each `sbatch.sh` and `plan.json`; rendering is byte-for-byte deterministic.

Update the golden files after an intended change with:  SRT_UPDATE_GOLDEN=1 python -m pytest tests/core
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from tests.core.core_helpers import GOLDEN_DIR, PROFILES_DIR, need, pair_id, raw_yaml, shipped_pairs, shipped_recipes

PAIRS = shipped_pairs()
IDS = [pair_id(r, p) for r, p in PAIRS]
UPDATE = os.environ.get("SRT_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, str, Path]]]:
    """id -> (sbatch.sh text, plan.json text, path of the script on disk), rendered in this process."""
    out_dir = tmp_path_factory.mktemp("rendered")
    out: dict[str, tuple[str, str, Path]] = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SRT_TUI_CONFIG_DIR", str(out_dir / "no-user-config"))
        mp.delenv("SRTSLURM_CONFIG", raising=False)
        for (recipe, profile), key in zip(PAIRS, IDS):
            prep = prepare(recipe, profile)
            script_path = out_dir / f"{key}.sbatch.sh"
            script_path.write_text(prep.script, encoding="utf-8")
            out[key] = (prep.script, prep.plan.to_json_text(), script_path)
        yield out


def _shellcheck_cache(exe: str) -> Path:
    """Scripts shellcheck passed before, by content and shellcheck version (identical input, identical verdict)."""
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    key = hashlib.sha256(version.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"srt-tui-shellcheck-{os.getuid()}" / key


@pytest.fixture(scope="module")
def shellcheck_findings(rendered: dict[str, tuple[str, str, Path]]) -> dict[str, list[str]]:
    """shellcheck -S warning over every rendered script (one batch per CPU): script path -> findings.

    Only clean verdicts are remembered (in the temp directory, keyed by the script's sha256 and the
    shellcheck version), so an unchanged script is not analysed twice; any change is checked afresh.
    """
    exe = shutil.which("shellcheck")
    need(exe is not None, "shellcheck is not installed")
    cache = _shellcheck_cache(str(exe))
    digest = {str(p): hashlib.sha256(text.encode()).hexdigest() for text, _, p in rendered.values()}
    findings: dict[str, list[str]] = {p: [] for p in digest}
    paths = [p for p, d in digest.items() if not (cache / d).exists()]
    workers = max(2, os.cpu_count() or 2)
    batches = [paths[i::workers] for i in range(workers)]

    def run(batch: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(exe), "--norc", "-S", "warning", "-f", "gcc", *batch], capture_output=True, text=True, timeout=300
        )

    with ThreadPoolExecutor(workers) as pool:
        for proc in pool.map(run, [b for b in batches if b]):
            assert proc.returncode in (0, 1), f"shellcheck failed to run: {proc.stderr}"
            for line in proc.stdout.splitlines():
                path = line.split(":", 1)[0]
                assert path in findings, f"unexpected shellcheck output: {line}"
                findings[path].append(line)
    cache.mkdir(parents=True, exist_ok=True)
    for path in paths:
        if not findings[path]:
            (cache / digest[path]).touch()
    return findings


def test_every_recipe_declares_existing_profiles() -> None:
    recipes = shipped_recipes()
    assert recipes, "no shipped recipes found"
    for path in recipes:
        declared = raw_yaml(path).get("profiles")
        assert declared, f"{path} declares no profiles"
        for name in declared:
            assert (PROFILES_DIR / f"{name}.yaml").is_file(), f"{path} declares unknown profile {name}"


@pytest.mark.parametrize("key", IDS)
def test_renders_and_passes_bash_n(key: str, rendered: dict[str, tuple[str, str, Path]]) -> None:
    script, plan_text, path = rendered[key]
    assert script.startswith("#!/bin/bash\n")
    plan = json.loads(plan_text)
    assert plan["profile"] == key.split("@", 1)[1]
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("key", IDS)
def test_shellcheck_clean(
    key: str, rendered: dict[str, tuple[str, str, Path]], shellcheck_findings: dict[str, list[str]]
) -> None:
    path = str(rendered[key][2])
    assert shellcheck_findings[path] == [], "\n".join(shellcheck_findings[path])


def fold_static_parts(script: str) -> str:
    """The script with its static runtime and fingerprint sources folded to one marker line each.

    Those parts are the templates themselves, embedded verbatim in every job (checked here); pinning
    them again in 31 golden files would only repeat the templates. The goldens pin what differs.
    """
    import shlex

    from srt_tui.core.template_files import template

    runtime = template("runtime.sh")
    fingerprint = shlex.quote(template("fingerprint.py"))
    assert script.count(runtime) == 1, "the runtime template must be embedded verbatim, once"
    assert script.count(fingerprint) == 1, "the fingerprint template must be embedded verbatim, once"
    script = script.replace(runtime, "# [srt_tui/core/templates/runtime.sh, embedded verbatim]\n")
    return script.replace(fingerprint, "'[srt_tui/core/templates/fingerprint.py, embedded verbatim]'")


@pytest.mark.parametrize("key", IDS)
def test_golden(key: str, rendered: dict[str, tuple[str, str, Path]]) -> None:
    script, plan_text, _ = rendered[key]
    for suffix, text in ((".sbatch.sh", fold_static_parts(script)), (".plan.json", plan_text)):
        golden = GOLDEN_DIR / f"{key}{suffix}"
        if UPDATE:
            GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
            golden.write_text(text, encoding="utf-8")
            continue
        assert golden.is_file(), (
            f"missing golden file {golden.name}: run SRT_UPDATE_GOLDEN=1 python -m pytest tests/core"
        )
        expected = golden.read_text(encoding="utf-8")
        if text != expected:
            import difflib

            diff = "".join(
                list(
                    difflib.unified_diff(
                        expected.splitlines(True), text.splitlines(True), f"golden/{golden.name}", "rendered"
                    )
                )[:80]
            )
            pytest.fail(f"{golden.name} differs (SRT_UPDATE_GOLDEN=1 to accept an intended change):\n{diff}")


def test_no_stale_golden_files() -> None:
    wanted = {f"{k}{s}" for k in IDS for s in (".sbatch.sh", ".plan.json")}
    present = {p.name for p in GOLDEN_DIR.glob("*")} if GOLDEN_DIR.is_dir() else set()
    stale = sorted(present - wanted)
    if UPDATE:
        for name in stale:
            (GOLDEN_DIR / name).unlink()
        return
    assert not stale, f"golden files without a (recipe, profile) pair: {stale} (SRT_UPDATE_GOLDEN=1 removes them)"


def test_render_twice_is_byte_identical(tmp_path: Path) -> None:
    for recipe, profile in PAIRS:
        first, second = prepare(recipe, profile), prepare(recipe, profile)
        assert first.script == second.script
        assert first.plan.to_json_text() == second.plan.to_json_text()


_DIGEST = """
import hashlib, json, sys
from srt_tui.core.api import prepare
out = {}
for recipe, profile in json.loads(sys.argv[1]):
    prep = prepare(recipe, profile)
    out[recipe + "@" + profile] = hashlib.sha256((prep.script + prep.plan.to_json_text()).encode()).hexdigest()
print(json.dumps(out, sort_keys=True))
"""


def test_deterministic_across_processes_and_hash_seeds(
    rendered: dict[str, tuple[str, str, Path]], tmp_path: Path
) -> None:
    """Different PYTHONHASHSEEDs (set and dict-of-set orders) must not change a byte of the output."""
    args = json.dumps([[str(r), p] for r, p in PAIRS])
    digests = []
    for seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed, SRT_TUI_CONFIG_DIR=str(tmp_path / "cfg"))
        env.pop("SRTSLURM_CONFIG", None)
        proc = subprocess.run(
            [sys.executable, "-c", _DIGEST, args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
        )
        assert proc.returncode == 0, proc.stderr
        digests.append(json.loads(proc.stdout))
    here = {
        f"{r}@{p}": hashlib.sha256((rendered[k][0] + rendered[k][1]).encode()).hexdigest()
        for (r, p), k in zip(PAIRS, IDS)
    }
    assert digests[0] == digests[1] == here
