"""`srt-tui doctor` without `-p` checks the profile the operator would use, never the demo (new-operator pass,
s36): it checked the demo `local` (local launcher, mocker) against Slurm and failed on a model path the mocker never
reads. Nothing here reaches Slurm: the pick is headless, the probes are stood in for, and the node's path findings
come from a report."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from srt_tui.cli.main import main
from srt_tui.core.spec.profile import Profile
from srt_tui.setup import doctor
from srt_tui.setup.doctor import unread_model_paths
from srt_tui.setup.doctor_profile import pick_doctor_profile
from srt_tui.setup.findings import Finding
from srt_tui.setup.node_script import NodeReport, PathCheck
from srt_tui.setup.probes import ProbeOptions, Prober, ProbeRun
from srt_tui.state.last_profile import remember_profile
from tests.conftest import REPO


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no srtslurm.yaml above the checkout is found


def _own(*names: str) -> None:
    folder = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / f"{name}.yaml").write_text((REPO / "profiles" / "nvidia-h100.yaml").read_text(), encoding="utf-8")


def test_no_profile_of_ones_own_is_said_with_setup_and_the_demo_is_not_checked() -> None:
    pick = pick_doctor_profile()
    assert pick.loaded is None
    assert "no profile of your own yet" in pick.why and "`srt-tui setup`" in pick.fix


def test_the_only_own_profile_is_picked() -> None:
    _own("mine")
    pick = pick_doctor_profile()
    assert pick.loaded is not None and pick.loaded.name == "mine" and pick.why == "your only profile"


def test_the_remembered_profile_wins_over_several_own() -> None:
    _own("one", "two")
    assert pick_doctor_profile().loaded is None  # several: which to name is said
    assert "several profiles (one, two)" in pick_doctor_profile().why
    remember_profile("two", "user")
    pick = pick_doctor_profile()
    assert pick.loaded is not None and pick.loaded.name == "two"
    assert "last chose in Launch or submitted with" in pick.why


def test_a_remembered_demo_is_not_checked() -> None:
    remember_profile("local", "shipped")
    assert pick_doctor_profile().loaded is None


def test_doctor_without_a_profile_says_so_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "doctor: nothing checked: no profile of your own yet" in out and "fix: `srt-tui setup`" in out


def test_doctor_says_which_profile_it_chose(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _own("mine")
    seen: list[Profile] = []

    def probes(profile: Profile, options: ProbeOptions, *args: Any) -> tuple[ProbeRun, list[Finding]]:
        seen.append(profile)
        return ProbeRun(), []

    monkeypatch.setattr(doctor, "run_doctor", probes)
    assert main(["doctor", "--no-node"]) == 0
    out = capsys.readouterr().out
    assert "doctor: profile mine (user:" in out and "chosen: your only profile; -p NAME checks another" in out
    assert seen and seen[0].default_partition == "batch"


class _NoSlurm:
    """The client a Prober holds; the node findings ask it nothing."""


def test_a_model_path_no_checked_engine_reads_only_warns() -> None:
    profile = Profile(model_paths={"mock-model": "/nowhere/mock", "real": "/nowhere/real"})
    assert unread_model_paths(profile, read=("/nowhere/real",)) == ("/nowhere/mock",)
    options = ProbeOptions(paths=("/nowhere/mock", "/nowhere/real", "/nowhere/out"), unread_paths=("/nowhere/mock",))
    report = NodeReport("n1", paths=tuple(PathCheck(p, False) for p in options.paths))
    found = {f.name: f for f in Prober(options, _NoSlurm())._node_findings(report, "7")}  # type: ignore[arg-type]
    assert found["path /nowhere/mock"].level == "warning"
    assert "the mocker reads none" in found["path /nowhere/mock"].fix
    assert found["path /nowhere/real"].level == "error" and found["path /nowhere/out"].level == "error"
