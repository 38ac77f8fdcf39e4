"""`srt-tui setup` (issue 21, operator pass of 2026-12-07): it refused without --probe, naming the TUI's Setup
mode instead of opening it. On a terminal it opens the TUI on Setup; elsewhere it says to add --probe."""

from __future__ import annotations

import sys

import pytest
from textual.widgets import Input

from srt_tui.tui.setup.screen import SetupScreen
from tests.tui.scenarios import settle


def test_setup_off_a_terminal_says_to_add_probe(capsys: pytest.CaptureFixture[str]) -> None:
    from srt_tui.cli.main import main

    assert main(["setup"]) == 2
    err = capsys.readouterr().err
    assert "opens the TUI's Setup mode, which needs a terminal" in err and "add --probe" in err
    assert main(["setup", "--name", "op7", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("srt-tui: error: --json, --name: only with --probe;"), err


async def test_setup_on_a_terminal_opens_setup_mode(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`srt-tui setup` refused ("the guided setup is the TUI's Setup mode (`srt-tui`, then 3)"). On a terminal it
    opens the TUI on Setup, the probe options filled in; `--help` says so."""
    from srt_tui.cli.main import main
    from srt_tui.tui.app import SrtTuiApp

    opened: list[SrtTuiApp] = []
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(SrtTuiApp, "run", lambda self, *a, **k: opened.append(self))
    assert main(["setup", "--partition", "gpu", "--path", "/shared/models", "--no-node"]) == 0
    [app] = opened
    app.check_slurm = False
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        assert screen.query_one("#opt-partition", Input).value == "gpu"
        assert screen.query_one("#opt-paths", Input).value == "/shared/models"
        assert screen.options.probe_node is False
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["setup", "--help"])
    assert "`srt-tui setup` opens the TUI on its Setup mode" in " ".join(capsys.readouterr().out.split())
