"""`dry-run -f sweep.yaml` suggests `apply` for all the jobs only when some can be submitted, and a sweep whose
`name:` holds a `{param}` (srtctl does not fill it there) is refused naming the field and the fix, not with the
name check's raw regex (new-operator pass)."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.cli import main as cli_main
from tests.conftest import REPO

AGG = (REPO / "recipes" / "mocker" / "mocker-agg-direct.yaml").read_text()


def _nodes_swept(tmp_path: Path, values: str) -> str:
    """A sweep over the aggregated role's nodes: `[1, 0]` one valid job and one invalid, `[0, -1]` none valid."""
    path = tmp_path / "nodes.yaml"
    path.write_text(
        AGG.replace("name: mocker-agg-direct", f"name: nodes\nsweep:\n  n: {values}").replace(
            "nodes: 1", 'nodes: "{n}"'
        )
    )
    return str(path)


def test_apply_is_suggested_only_when_a_job_of_the_sweep_is_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _nodes_swept(tmp_path, "[0, -1]")
    assert cli_main.main(["dry-run", "-f", spec, "-p", "local"]) == 2
    out = capsys.readouterr().out
    assert (
        "srt-tui apply" not in out
        and f"no job is valid: fix the problems above, then: srt-tui dry-run -f {spec}" in out
    )

    spec = _nodes_swept(tmp_path, "[1, 0]")
    assert cli_main.main(["dry-run", "-f", spec, "-p", "local"]) == 2
    out = capsys.readouterr().out
    # the job in full is a valid one; apply refuses the whole sweep while a job is invalid, so it waits for that
    assert f"one job in full: srt-tui dry-run -f {spec}:sweep[0]" in out
    assert f"all, once every job is valid: srt-tui apply -f {spec}" in out


def test_a_placeholder_in_a_sweeps_name_is_refused_naming_the_field_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """srtctl names each member `<name>_<k><v>` from the name as written (src/srtctl/core/sweep.py), so `osl-{osl}`
    would be `osl-{osl}_osl8`: the name's `{osl}` is never filled, and srt-tui said only the name's regex."""
    path = tmp_path / "named.yaml"
    path.write_text(
        AGG.replace("name: mocker-agg-direct", "name: osl-{osl}\nsweep:\n  osl: [8, 4]").replace(
            "osl: 4", 'osl: "{osl}"'
        )
    )
    assert cli_main.main(["dry-run", "-f", str(path), "-p", "local"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4: name: `{{osl}}` is not filled in a sweep's name" in err, err
    assert "(fix: name: osl   (the jobs: osl_osl8, …))" in err and "should match pattern" not in err, err
