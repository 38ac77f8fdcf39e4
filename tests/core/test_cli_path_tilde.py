"""Issue 21: the shell expands `~` in `--write ~/x` but not in `--write=~/x` (a `~` after `=`): every path option
of the CLI expands a leading `~` itself, through one argparse type, so both spellings mean the same path."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from srt_tui.cli.args import alias_path_arg, path_arg
from srt_tui.cli.main import build_parser

#: options that take a path (or a name-or-path, or ALIAS=PATH), on whichever command has them
PATH_OPTIONS = {"-o", "-f", "-p", "--write", "--workdir", "--extra-path", "--path", "--output-dir", "--log-file",
                "--model"}  # fmt: skip


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, by name (the top-level one as "")."""
    out = {"": parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out |= dict(action.choices)
    return out


def test_every_path_option_expands_a_leading_tilde() -> None:
    """A path option added without the type would take `~` literally after `=`: each one carries it."""
    seen = []
    for name, parser in _subparsers(build_parser(["status"])).items():
        for action in parser._actions:
            if PATH_OPTIONS & set(action.option_strings):
                seen.append((name, action.dest))
                assert action.type in (path_arg, alias_path_arg), (name, action.option_strings)
    assert len(seen) >= 20, seen  # the walk found the commands' options, not only the top level's


@pytest.mark.parametrize(
    ("argv", "dest"),
    [
        (["setup", "--probe", "--write={}"], "write"),
        (["setup", "--probe", "--workdir={}"], "workdir"),
        (["setup", "--probe", "--output-dir={}"], "output_dir"),
        (["dry-run", "-f", "r.yaml", "--output={}"], "output"),
        (["status", "--output={}"], "output"),
        (["wait", "7", "--log-file={}"], "log_file"),
        (["doctor", "--file={}"], "file"),
    ],
)
def test_tilde_after_equals_means_the_same_as_after_a_space(argv: list[str], dest: str) -> None:
    home = str(Path.home())
    joined = build_parser(argv).parse_args([a.format("~/x") for a in argv])
    assert getattr(joined, dest) in (f"{home}/x", [f"{home}/x"]), joined
    flag, _, _ = argv[-1].partition("=")
    spaced = build_parser(argv).parse_args([*argv[:-1], flag, "~/x"])
    assert getattr(spaced, dest) == getattr(joined, dest)


def test_only_a_leading_tilde_is_expanded() -> None:
    home = str(Path.home())
    assert path_arg("a/~/b") == "a/~/b" and path_arg("") == "" and path_arg("~") == home
    assert alias_path_arg("llama=~/w") == f"llama={home}/w" and alias_path_arg("~x") == "~x"
