"""Setup writing over an existing profile (operator pass 2026-12-07): a probe stopped while its job was pending
silently replaced a working profile with one lacking the compute node's keys; after the write `1` typed into the
Time limit field instead of switching to Launch; the Time limit's refusal named neither `-` nor what it takes."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from srt_tui.core.api import prepare
from srt_tui.setup.findings import Finding
from srt_tui.setup.probes import ProbeOptions, ProbeRun
from srt_tui.tui.setup.dialogs import ConfirmOverwrite
from srt_tui.tui.setup.screen import SetupScreen
from srt_tui.widgets.typed_input import WAYS_OUT
from tests.conftest import REPO
from tests.setup.recorded import recorded_run, setup_app
from tests.tui.scenarios import settle


@pytest.fixture(autouse=True)
def _no_animation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)


def stopped_runner(options: ProbeOptions, progress: Any) -> ProbeRun:
    """The recorded run as a stopped probe ends it: the probe job never ran, so nothing from the compute node."""
    run = recorded_run()
    node = Finding.warn("node", "probe job 7 stopped before it ended (cancelled): no node facts", "probe again")
    return dataclasses.replace(run, node=None, findings=[*run.findings[:3], node])


async def _write_first_profile(pilot: Any, screen: SetupScreen, models: Path) -> Path:
    """The full probes, a model alias, Ctrl+S: the working profile the operator has before probing again."""
    await pilot.click("#run-probes")
    await settle(pilot)
    screen.query_one("#choice-name").value = "op8slurm"  # type: ignore[attr-defined]
    screen.query_one("#choice-models").value = f"mock-model={models}"  # type: ignore[attr-defined]
    await settle(pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert screen.written is not None
    return screen.written


def _models(tmp_path: Path) -> Path:
    models = tmp_path / "models" / "mock-model"
    models.mkdir(parents=True)
    return models


async def test_a_stopped_probe_keeps_the_node_keys_of_the_profile_it_overwrites(tmp_path: Path) -> None:
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        target = await _write_first_profile(pilot, screen, _models(tmp_path))
        assert target == Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles" / "op8slurm.yaml"
        before = yaml.safe_load(target.read_text())
        assert before["network_interface"] == "eth0" and before["container_runtime"] == "none"
        screen.runner = stopped_runner
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.proposal is not None and not screen.proposal.problems, screen.proposal
        kept = screen.proposal.key("network_interface")
        assert kept is not None and kept.source == "kept" and "compute node was not probed" in kept.evidence
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmOverwrite)  # nothing lost or changed: nothing to ask
        assert screen.written == target
    after = yaml.safe_load(target.read_text())
    assert after == before
    assert prepare(REPO / "recipes/mocker/mocker-1p2d.yaml", "op8slurm").script  # the dry run still works


async def test_overwriting_a_profile_asks_first_naming_the_keys_lost_and_changed(tmp_path: Path) -> None:
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        target = await _write_first_profile(pilot, screen, _models(tmp_path))
        with target.open("a") as out:  # a key the operator added by hand, which Setup does not propose
            out.write("setup_script: /shared/setup.sh\n")
        before = target.read_text()
        screen.query_one("#choice-account").value = "llm-perf"  # type: ignore[attr-defined]
        screen.query_one("#choice-models").value = ""  # type: ignore[attr-defined]
        screen.query_one("#choice-time_limit").value = "1-12:00:00"  # type: ignore[attr-defined]
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmOverwrite)
        assert str(dialog.query_one("#overwrite-title").render()) == f"Overwrite {target}?"
        note = dialog.note()
        assert "Lost: model_paths, setup_script" in note, note
        assert "Changed: default_time_limit: 04:00:00 → 1-12:00:00" in note, note
        assert "default_account" not in note  # added, not lost nor changed: the old file had none
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and target.read_text() == before
        assert "kept as it was" in str(screen.query_one("#write-status").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmOverwrite)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen and screen.written == target
    after = yaml.safe_load(target.read_text())
    assert after["default_account"] == "llm-perf" and "setup_script" not in after and "model_paths" not in after


async def test_after_writing_1_switches_to_launch_not_into_the_time_limit(tmp_path: Path) -> None:
    app = setup_app(profiles_dir=tmp_path / "profiles")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        field = screen.query_one("#choice-time_limit")
        field.focus()
        await pilot.press(*"30:00")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.written is not None and "choose it in Launch (1)" in str(
            screen.query_one("#write-status").render()
        )
        await pilot.press("1")
        await settle(pilot)
        assert field.value == "30:00"  # type: ignore[attr-defined]
        assert app.current_mode == "launch"


async def test_the_time_limit_refusal_says_what_it_takes() -> None:
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        field = screen.query_one("#choice-time_limit")
        field.value = ""  # type: ignore[attr-defined]
        field.focus()
        await pilot.press(*"1-12:00:00h")
        await settle(pilot)
        assert field.value == "1-12:00:00"  # type: ignore[attr-defined]  # `-` of the D-HH:MM:SS form is taken
        said = [str(n.message) for n in app._notifications]
        assert said == [f"Time limit: digits, : and - only (minutes, HH:MM:SS or D-HH:MM:SS)\n{WAYS_OUT}"], said


def _setup_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], runner: Any, *args: str
) -> tuple[int, str]:
    """`srt-tui setup --probe --write …` with the probes replaced by ``runner``: (exit status, stderr)."""
    from srt_tui.cli.main import main

    monkeypatch.setattr("srt_tui.setup.probes.run_probes", lambda options, progress: runner(options, progress))
    code = main(["setup", "--probe", *args])
    return code, capsys.readouterr().err


def test_setup_write_refuses_to_lose_or_change_keys_of_a_profile_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 21: `setup --probe --write` wrote over an existing profile without the guard the TUI's Setup has; it
    refuses now, naming the keys lost and changed as the TUI's dialog does, and `--force` writes."""
    from tests.setup.recorded import recorded_runner

    target = tmp_path / "op8slurm.yaml"
    write = ["--write", str(target), "--name", "op8slurm"]
    models = f"--model=mock-model={_models(tmp_path)}"
    code, err = _setup_cli(monkeypatch, capsys, recorded_runner, *write, models)
    assert code == 0 and target.is_file(), err
    with target.open("a") as out:  # a key the operator added by hand, which Setup does not propose
        out.write("setup_script: /shared/setup.sh\n")
    before = target.read_text()
    code, err = _setup_cli(monkeypatch, capsys, recorded_runner, *write, "--time-limit", "1-12:00:00")
    assert code == 1 and target.read_text() == before
    [line] = [ln for ln in err.splitlines() if ln.startswith("srt-tui: error:")]
    assert line == (
        f"srt-tui: error: profile not written: {target} exists and writing over it would change it: "
        "Lost: model_paths, setup_script; Changed: default_time_limit: 04:00:00 → 1-12:00:00 "
        "(fix: add --force to write over it, or write elsewhere with --write PATH or --name NAME)"
    ), line
    code, err = _setup_cli(monkeypatch, capsys, recorded_runner, *write, "--time-limit", "1-12:00:00", "--force")
    assert code == 0, err
    after = yaml.safe_load(target.read_text())
    assert after["default_time_limit"] == "1-12:00:00" and "setup_script" not in after and "model_paths" not in after


def test_setup_write_keeps_the_node_keys_a_stopped_probe_did_not_learn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The compute node not probed (the probe job stopped while pending, or --no-node): its keys are kept from the
    file written over, as the TUI's Setup keeps them, so nothing is lost and no --force is needed."""
    from tests.setup.recorded import recorded_runner

    target = tmp_path / "op8slurm.yaml"
    write = ["--write", str(target), "--name", "op8slurm", f"--model=mock-model={_models(tmp_path)}"]
    assert _setup_cli(monkeypatch, capsys, recorded_runner, *write)[0] == 0
    before = yaml.safe_load(target.read_text())
    assert before["network_interface"] == "eth0" and before["container_runtime"] == "none"
    code, err = _setup_cli(monkeypatch, capsys, stopped_runner, *write)
    assert "srt-tui: error" not in err, err
    assert yaml.safe_load(target.read_text()) == before
    assert "kept from" in target.read_text()  # each kept key says where it came from
