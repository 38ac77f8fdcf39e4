"""Setup writing over a profile whose `mpi_plugin` does not load here (issue 21, s34), on the real local Slurm (the
MPI probe is `srun --mpi=list`, then `srun --test-only --mpi=X`). `srt-tui doctor` flags such a profile; Setup wrote
over it saying only `Changed: mpi_plugin: pmix → pmi2`, or nothing when the file named none (srtctl's default,
pmix). Both faces now say, before writing, that the file's plugin does not load and what they write instead: the
review step's line beside Write profile and the overwrite dialog (the TUI), the proposal's notes and the refusal
without --force (`setup --probe --write`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.widgets import Input, Static

from srt_tui.cli.main import main
from srt_tui.setup.probes import ProbeOptions
from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.context import ContextHub
from srt_tui.tui.setup.dialogs import ConfirmOverwrite
from srt_tui.tui.setup.screen import SetupScreen
from tests.cluster import ClusterInfo
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import FIXED_NOW

pytestmark = pytest.mark.slurm


def _pmix_loads() -> bool:
    """Whether this cluster's pmix loads (Debian's 22.05 lists it without its PMIx library: it does not)."""
    return (
        subprocess.run(["srun", "--test-only", "-N1", "-t1", "--mpi=pmix", "true"], capture_output=True).returncode == 0
    )


def _profile(path: Path, cluster: ClusterInfo, **keys: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"cluster": "local", "default_partition": cluster.partition, **keys}))
    return path


def test_setup_probe_write_says_the_files_mpi_plugin_does_not_load(
    cluster: ClusterInfo, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _profile(shared / "mine.yaml", cluster, mpi_plugin="nompi")  # a plugin this Slurm does not have
    argv = ["setup", "--probe", "--no-node", "--write", str(target), "--name", "mine"]
    assert main(argv) == 1  # refused without --force: it changes the file's keys
    said = capsys.readouterr()
    writes = yaml.safe_load(said.out.split("Proposed profile:\n", 1)[1].split("\nnote: ", 1)[0])["mpi_plugin"]
    note = (
        "the file's `mpi_plugin: nompi` does not load on this cluster (srun --mpi=list does not list it): its MPI "
        f"steps fail; this writes `mpi_plugin: {writes}`"
    )
    assert f"note: {target}: {note}" in said.out.splitlines(), said.out
    assert f"; note: {note} (fix: add --force" in said.err, said.err
    assert yaml.safe_load(target.read_text())["mpi_plugin"] == "nompi"  # not written
    assert main([*argv, "--force", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["proposal"]["overwrite_notes"] == [note] and doc["written"] == str(target)
    assert yaml.safe_load(target.read_text())["mpi_plugin"] == writes


def test_setup_probe_says_the_default_pmix_of_a_file_that_names_none(
    cluster: ClusterInfo, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file with no `mpi_plugin` runs pmix: where pmix does not load, writing over it says so, though no key of
    the file is lost or changed (so the write goes ahead); where it loads, nothing is said."""
    target = _profile(shared / "plain.yaml", cluster)
    assert main(["setup", "--probe", "--no-node", "--write", str(target), "--name", "plain", "--force"]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    if _pmix_loads():
        assert notes == [], out
        return
    assert notes == [
        f"note: {target}: the file's `mpi_plugin` (unset: pmix, the default) does not load on this cluster "
        "(srun --test-only --mpi=pmix: pmi/pmix: can not load PMIx library): its MPI steps fail; this writes "
        f"`mpi_plugin: {yaml.safe_load(target.read_text())['mpi_plugin']}`"
    ], out


def _setup_app(profiles: Path) -> SrtTuiApp:
    """The real app in Setup mode with the live probes (no compute-node job), writing to ``profiles``."""

    def screen(hub: ContextHub) -> SetupScreen:
        return SetupScreen(hub, options=ProbeOptions(probe_node=False), profiles_dir=profiles)

    class SetupApp(SrtTuiApp):
        MODE_SCREENS = {**SrtTuiApp.MODE_SCREENS, "setup": screen}
        DEFAULT_MODE = "setup"

    app = SetupApp(clock=lambda: FIXED_NOW, check_slurm=False, cursor_blink=False)
    app.animation_level = "none"
    return app


async def test_setup_reviews_the_files_mpi_plugin_before_writing_over_it(cluster: ClusterInfo, tmp_path: Path) -> None:
    profiles = tmp_path / "profiles"
    target = _profile(profiles / "mine.yaml", cluster, mpi_plugin="nompi")
    app = _setup_app(profiles)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        screen.query_one("#choice-name", Input).value = "mine"  # the file it would write over: its plugin is tried
        await pilot.press("ctrl+r")
        for _ in range(300):  # the live probes: srun --mpi=list, srun --test-only …
            await pilot.pause(0.1)
            if screen.proposal is not None and not screen._probes_on:
                break
        await settle(pilot)
        assert screen.proposal is not None, "the probes did not end"
        writes = screen.proposal.data()["mpi_plugin"]
        note = (
            "the file's `mpi_plugin: nompi` does not load on this cluster (srun --mpi=list does not list it): its MPI "
            f"steps fail; this writes `mpi_plugin: {writes}`"
        )
        status = str(screen.query_one("#write-status", Static).render()).replace("\n", " ")
        assert status == f"⚠ {note}", status  # on the review step, before anything is written
        await pilot.press("ctrl+s")
        await settle(pilot)
        dialog: Any = app.screen
        assert isinstance(dialog, ConfirmOverwrite), app.screen
        assert f"Note: {note}" in dialog.note().splitlines(), dialog.note()
        await pilot.press("y")
        await settle(pilot)
    assert yaml.safe_load(target.read_text())["mpi_plugin"] == writes
