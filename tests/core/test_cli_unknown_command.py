"""A mistyped subcommand gets the nearest one named, exit 2, no traceback (issue 11, item 6)."""

from __future__ import annotations

import pytest

from srt_tui.cli.main import main


def test_a_typo_names_the_command_meant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stauts"]) == 2
    err = capsys.readouterr().err
    assert "did you mean `status`?" in err and "Traceback" not in err and err.count("\n") == 1


def test_an_unknown_word_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-p", "nvidia-h100", "zzz"]) == 2
    err = capsys.readouterr().err
    assert "unknown command `zzz`" in err and "did you mean" not in err and "status" in err
