"""The dry-run's header names the model as the commands below it do (issue 21, pass 7): the served name the
worker commands pass (`--model mock-model`) and the path it is loaded from, each labelled."""

from __future__ import annotations

from pathlib import Path

from tests.core.core_helpers import cli


def test_the_header_names_the_served_model_and_where_it_is_loaded_from(tmp_path: Path) -> None:
    proc = cli("dry-run", "-p", "local", "-f", "mocker-1p2d", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    model = next(ln for ln in lines if ln.startswith("model: "))
    assert model == "model: served as mock-model · loaded from /tmp/srt-tui/models/mock-model"
    assert "--model mock-model" in proc.stdout  # what the header says the commands serve, they serve
    assert not any(ln.startswith("slurm: ") and "model" in ln for ln in lines)  # said once, labelled


def test_a_container_names_where_it_sees_the_model(tmp_path: Path) -> None:
    proc = cli("dry-run", "-p", "nvidia-h100", "-f", "h100-1p1d-sglang", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    model = next(ln for ln in proc.stdout.splitlines() if ln.startswith("model: "))
    assert model == "model: served as Qwen3-32B · loaded from /lustre/models/Qwen3-32B (mounted at /model)"
