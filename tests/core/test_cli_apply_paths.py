"""`apply` refuses a model or container path this machine does not find, as the wizard's Submit step and srtctl's
apply do (srtctl: `_assert_preflight_passed`, skipped by `--no-preflight`), with Submit's words, the field named and
the fix; nothing is written. Slurm is made unreachable (SLURM_CONF naming no file): a job that gets past the paths
ends at Slurm, which does not answer (exit 3), one the paths refuse ends before (exit 2)."""

from __future__ import annotations

from pathlib import Path

import yaml

from srt_tui.core.api import prepare
from srt_tui.slurm.preflight import host_checks
from tests.conftest import REPO, profile_here
from tests.core.core_helpers import cli

H100 = str(REPO / "recipes" / "nvidia" / "h100-1p1d-sglang.yaml")
MOCKER = str(REPO / "recipes" / "mocker" / "mocker-1p1d.yaml")


def _apply(tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    env = {"SLURM_CONF": str(tmp_path / "no-slurm.conf"), "PYTHONPATH": str(REPO)}
    proc = cli("apply", "-y", "--launcher", "slurm", "-o", str(tmp_path / "out"), *args, cwd=tmp_path, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stderr.splitlines()


def test_apply_refuses_the_paths_submit_refuses_with_its_words_and_the_escape_hatch(tmp_path: Path) -> None:
    code, lines = _apply(tmp_path, "-f", H100, "-p", "nvidia-h100")  # /lustre/…: not on this machine
    assert code == 2, lines
    submit = [c for c in host_checks(prepare(H100, "nvidia-h100"), "slurm", face="tui") if c.blocks]
    assert [c.name for c in submit] == ["model.path", "model.container"]
    for check in submit:  # the field and Submit's message, then the fix, on one line each
        [line] = [ln for ln in lines if f"preflight {check.name}: {check.message}" in ln]
        assert line.startswith("srt-tui: error: ") and "fix: `srt-tui preflight -f RECIPE -p PROFILE`" in line
        assert "--no-preflight submits anyway when the path exists only on the compute nodes" in line
    assert "alias `qwen3-32b` resolved to /lustre/models/Qwen3-32B does not exist" in "\n".join(lines)
    assert not (tmp_path / "out").exists()  # refused before anything is written
    code, lines = _apply(tmp_path, "-f", H100, "-p", "nvidia-h100", "--no-preflight")
    assert code == 3 and lines[-1].startswith("srt-tui: error: slurm: "), lines  # past the paths: on to Slurm
    code, lines = _apply(tmp_path, "-f", H100, "-p", profile_here(tmp_path, "nvidia-h100"))
    assert code == 3 and not [ln for ln in lines if "preflight" in ln], lines  # paths found: on to Slurm


def test_the_mocker_is_not_refused_for_a_model_it_does_not_load(tmp_path: Path) -> None:
    profile = tmp_path / "p.yaml"
    data = yaml.safe_load((REPO / "profiles" / "local.yaml").read_text())
    data["model_paths"] = {"mock-model": str(tmp_path / "no-such-model")}
    profile.write_text(yaml.safe_dump(data))
    code, lines = _apply(tmp_path, "-f", MOCKER, "-p", str(profile))
    assert code == 3 and not [ln for ln in lines if "model.path" in ln], lines


def test_a_sweep_is_refused_whole_before_any_member_is_submitted(tmp_path: Path) -> None:
    recipe = tmp_path / "hsweep.yaml"
    text = Path(H100).read_text().replace("name: h100-1p1d-sglang", "name: hsweep\nsweep:\n  osl: [512, 1024]")
    recipe.write_text(text.replace("osl: 1024", 'osl: "{osl}"'))
    code, lines = _apply(tmp_path, "-f", str(recipe), "-p", "nvidia-h100")
    assert code == 2, lines
    # counted on top, as one job's refusal counts its checks (s36: the sweep's had no such line)
    assert lines[0] == "srt-tui: error: preflight: 4 checks fail: model.path, model.container in 2 members", lines
    for member in ("sweep[0]", "sweep[1]"):
        assert [ln for ln in lines if ln.startswith(f"srt-tui: error: {member}: preflight model.path: ")], lines
    assert not (tmp_path / "out").exists()
