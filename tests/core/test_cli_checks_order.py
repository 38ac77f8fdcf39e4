"""The command line lists checks in the Submit step's order (s36): worst first (`worst_first`), several counted and
named on a first line (`failing_line`): `srt-tui preflight -v` listed a passing model path above the container that
fails, `apply`'s refusal and `doctor -f`'s recipe checks had no line saying how many fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.cli.main import main
from tests.core.core_helpers import preflight_recipe


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`srt-tui ARGS` run here (this tree's code): its exit code, stdout and stderr."""
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_preflight_lists_the_failing_path_first_under_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "models" / "qwen"
    model.mkdir(parents=True)
    code, out, _ = cli(capsys, "preflight", "-f", str(preflight_recipe(tmp_path, model)), "-p", "nvidia-h100", "-v")
    lines = out.splitlines()
    assert code == 1 and lines[0] == "✗ pf", out
    assert lines[1] == "  ✗ 1 check fails: model.container", out
    assert lines[2].startswith("  - model.container [container-not-available]"), out
    assert lines[3].startswith("  - model.path [model-available]"), out
    _, alone, _ = cli(capsys, "preflight", "-f", str(tmp_path / "pf.yaml"), "-p", "nvidia-h100")
    assert alone.splitlines()[1].startswith("  - model.container"), alone  # one listed: no count


def test_apply_and_doctor_count_the_failing_checks_on_top(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLURM_CONF", "/nonexistent")  # no Slurm answers: its checks could not run
    recipe = str(preflight_recipe(tmp_path, tmp_path / "no-model"))
    _, _, err = cli(capsys, "apply", "-f", recipe, "-p", "nvidia-h100", "-y", "--launcher", "slurm")
    errors = err.splitlines()
    assert errors[0] == "srt-tui: error: preflight: 2 checks fail: model.path, model.container", err
    assert errors[1].startswith("srt-tui: error: preflight model.path:"), err
    _, out, _ = cli(capsys, "doctor", "-p", "nvidia-h100", "-f", recipe)
    section = out.split("Preflight of pf:\n", 1)[1].splitlines()
    assert section[0] == "  ✗ 2 checks fail: model.path, model.container", out
    assert section[1].startswith("  ✗ preflight model.path:") and "· preflight partition" in out
