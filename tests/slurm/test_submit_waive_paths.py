"""`submit_prepared(waive_checks=True)`, the Submit step's Ctrl+N twice (issue 21, s34): a Slurm job whose model or
container path this machine does not see goes on past those checks (to Slurm, which does not answer here: SLURM_CONF
names no file), said in its notes; with the local launcher, which runs the job here, the paths still refuse it."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from srt_tui.slurm.preflight import PreflightError
from srt_tui.slurm.submit import SlurmUnreachable, submit_prepared
from tests.conftest import REPO

#: what refuses it: the count of the failing checks on top (`failing_summary`), then each, worst first
REFUSED = ["preflight", "preflight model.path", "preflight model.container"]
H100 = str(REPO / "recipes" / "nvidia" / "h100-1p1d-sglang.yaml")  # nvidia-h100: /lustre/…, not on this machine


def test_waived_paths_reach_slurm_and_local_still_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLURM_CONF", str(tmp_path / "no-slurm.conf"))
    monkeypatch.setenv("SRT_TUI_SLURM_TRANSPORT", "cli")
    prep = prepare(H100, "nvidia-h100")
    out = tmp_path / "out"
    with pytest.raises(PreflightError) as refused:
        submit_prepared(prep, launcher="slurm", output_dir=out, face="tui")
    assert [p.field for p in refused.value.problems] == REFUSED
    with pytest.raises(SlurmUnreachable):  # past this machine's path checks: on to Slurm
        submit_prepared(prep, launcher="slurm", output_dir=out, face="tui", waive_checks=True)
    with pytest.raises(PreflightError) as local:  # Local runs it here, where the paths are missing
        submit_prepared(prep, launcher="local", output_dir=out, face="tui", waive_checks=True)
    assert [p.field for p in local.value.problems] == REFUSED
    assert not out.exists()  # nothing written by any of them


def test_a_waived_check_is_noted_with_its_code_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A submission past the missing paths notes each by its check's name, its code once (s36: it read
    `model-not-available: [model-not-available] …`, the code as the name and again in the message)."""
    import srt_tui.slurm.submit as submit

    accepted = submit.Submission("41", tmp_path / "41", "slurm")
    monkeypatch.setattr(submit, "choose_launcher", lambda prep, launcher, transport, client: ("slurm", None))
    monkeypatch.setattr(submit, "submit_slurm", lambda *a, **kw: accepted)  # Slurm takes it: nothing is sent
    sub = submit_prepared(prepare(H100, "nvidia-h100"), launcher="slurm", output_dir=tmp_path, waive_checks=True)
    model = next(n for n in sub.notes if "model-not-available" in n)
    assert model.startswith("model.path: [model-not-available] "), model
    assert model.count("model-not-available") == 1, model
    assert model.endswith("(submitted past it, as asked)"), model
