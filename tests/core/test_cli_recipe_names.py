"""`-f` names a shipped recipe from any directory (operator report: in an empty directory the README's own
`apply -f recipes/mocker/mocker-1p2d.yaml -p local -y` and `-f mocker-1p2d` said "recipe file not found"): a
path wins when it exists, else a shipped recipe's path under `recipes/`, else one shipped or user recipe's
name; every command that takes `-f` finds it the same way, and a miss names the closest recipes."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from srt_tui.cli import main as cli_main
from srt_tui.core.paths import shipped_recipes_dir, user_recipes_dir

SHIPPED = shipped_recipes_dir() / "mocker" / "mocker-1p2d.yaml"
OVERRIDES = """\
base:
  name: two-ways
  model: {path: mock-model}
  engine: mocker
  roles: {agg: {nodes: 1, workers: 1}}
override_fast:
  name: two-ways-fast
"""


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory outside the checkout."""
    work = tmp_path / "empty"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def _file_seen(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[int, Any]:
    """main(argv) with the command itself replaced: what it would have been given as `args.file`."""
    seen: list[Any] = []
    parse = cli_main.CliParser.parse_known_args

    def record(ns: argparse.Namespace) -> int:
        seen.append(ns.file)
        return 0

    def parse_and_record(self: argparse.ArgumentParser, *a: Any, **kw: Any) -> Any:
        args, extra = parse(self, *a, **kw)
        args.func = record
        return args, extra

    monkeypatch.setattr(cli_main.CliParser, "parse_known_args", parse_and_record)
    monkeypatch.setattr(cli_main, "_settle_interrupted", lambda transport: None)
    rc = cli_main.main(argv)
    return rc, seen[0] if seen else None


def _commands_with_file() -> list[str]:
    """Every subcommand that takes `-f`, read from the parser: a new one is covered without listing it here."""
    parser = cli_main.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return sorted(name for name, p in sub.choices.items() if any("-f" in a.option_strings for a in p._actions))  # noqa: SLF001


def test_every_command_with_f_is_covered() -> None:
    assert _commands_with_file() == ["apply", "doctor", "dry-run", "preflight"]


@pytest.mark.parametrize("command", _commands_with_file())
@pytest.mark.parametrize(
    "given", ["recipes/mocker/mocker-1p2d.yaml", "mocker/mocker-1p2d.yaml", "mocker-1p2d", "mocker-1p2d.yaml"]
)
def test_each_command_finds_a_shipped_recipe_by_its_path_or_name(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch, command: str, given: str
) -> None:
    rc, file = _file_seen(monkeypatch, [command, "-f", given, "-p", "local"])
    assert rc == 0
    assert file == ([str(SHIPPED)] if command in ("dry-run", "preflight") else str(SHIPPED))


def test_dry_run_of_the_readme_example_from_an_empty_directory(
    elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main.main(["dry-run", "-f", "recipes/mocker/mocker-1p2d.yaml", "-p", "local", "--no-script"]) == 0
    assert cli_main.main(["dry-run", "-f", "mocker-1p2d", "-p", "local", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("srt-tui dry-run: mocker-1p2d  (1P2D") and '"name": "mocker-1p2d"' in out


def test_a_path_that_exists_wins(elsewhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = elsewhere / "recipes" / "mocker" / "mocker-1p2d.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text(SHIPPED.read_text())
    (elsewhere / "mocker-1p2d").write_text(SHIPPED.read_text())
    assert _file_seen(monkeypatch, ["preflight", "-f", "recipes/mocker/mocker-1p2d.yaml"])[1] == [
        "recipes/mocker/mocker-1p2d.yaml"
    ]
    assert _file_seen(monkeypatch, ["preflight", "-f", "mocker-1p2d"])[1] == ["mocker-1p2d"]


def test_a_shipped_folder_checks_its_recipes(elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["dry-run", "-f", "recipes/mocker", "-p", "local"]) == 0
    shipped = len(list((shipped_recipes_dir() / "mocker").glob("*.yaml")))
    assert f"{shipped} jobs in {shipped} files: {shipped} ok" in capsys.readouterr().out


def test_selectors_follow_a_name_and_a_user_recipe_is_found_by_name(
    elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = user_recipes_dir() / "team"
    team.mkdir(parents=True)
    (team / "two-ways.yaml").write_text(OVERRIDES)
    agg = (shipped_recipes_dir() / "mocker" / "mocker-agg-direct.yaml").read_text()
    (team / "swept.yaml").write_text(
        agg.replace("name: mocker-agg-direct", "name: swept\nsweep:\n  isl: [32, 64]").replace(
            "  isl: 32", '  isl: "{isl}"'
        )
    )
    assert cli_main.main(["dry-run", "-f", "two-ways:override_fast", "-p", "local", "--json"]) == 0
    assert '"name": "two-ways-fast"' in capsys.readouterr().out
    assert cli_main.main(["dry-run", "-f", "swept:sweep[1]", "-p", "local", "--json"]) == 0
    assert '"name": "swept_isl64"' in capsys.readouterr().out


def test_a_name_two_recipes_have_is_refused_listing_both(elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = user_recipes_dir() / "mocker" / "mocker-1p2d.yaml"  # the TUI's "edit a copy" writes it there
    copy.parent.mkdir(parents=True)
    copy.write_text(SHIPPED.read_text())
    assert cli_main.main(["dry-run", "-f", "mocker-1p2d", "-p", "local"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "srt-tui: error: -f: 2 recipes are named `mocker-1p2d` (fix: give its path: "
        f"recipes/mocker/mocker-1p2d.yaml, {copy})"
    ]
    assert cli_main.main(["dry-run", "-f", "recipes/mocker/mocker-1p2d.yaml", "-p", "local", "--json"]) == 0


@pytest.mark.parametrize(
    ("given", "closest"),
    [
        ("mocker-1p2", "mocker-1p2d"),
        ("mocker-1p2.yaml", "mocker-1p2d.yaml"),
        ("recipes/mocker/mockr-1p2d.yaml", "recipes/mocker/mocker-1p2d.yaml"),
        ("mocker/mocker-1p2.yaml", "mocker/mocker-1p2d.yaml"),
    ],
)
def test_a_miss_names_the_closest_recipe(
    elsewhere: Path, capsys: pytest.CaptureFixture[str], given: str, closest: str
) -> None:
    assert cli_main.main(["apply", "-f", given, "-p", "local", "-y"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"srt-tui: error: {given}: recipe file not found (fix: did you mean "), (
        err
    )
    assert f"`{closest}`?" in err[0]


def test_the_shipped_library_holds_no_two_recipes_of_one_name() -> None:
    """Each shipped recipe can be named by its name alone (a second one would make both ambiguous)."""
    names = [p.stem for p in shipped_recipes_dir().rglob("*.y*ml")]
    assert len(names) == len(set(names)) and len(names) >= 20
