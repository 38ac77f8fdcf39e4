"""A parallelism size (TP, PP, DP, EP) that is not a whole number is refused before anything runs, by `dry-run`,
`apply` and `dry-run -f DIR` alike, naming the file, the line, the field and the fix.

Operator pass: `args: {tp-size: eight}` under a role was rendered as `--tp-size eight`, `apply` submitted it and
the job failed as it started (`invalid int value: 'eight'`), while the TUI's Topology step refused the same file.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.core.core_helpers import cli

MOCKER_1P2D = (REPO / "recipes" / "mocker" / "mocker-1p2d.yaml").read_text(encoding="utf-8")
H100_1P1D = (REPO / "recipes" / "nvidia" / "h100-1p1d-sglang.yaml").read_text(encoding="utf-8")


def _eight(tmp_path: Path) -> Path:
    """The shipped mocker-1p2d with `tp-size: eight` in both roles."""
    assert MOCKER_1P2D.count("args: {tp-size: 8}") == 2
    path = tmp_path / "bad.yaml"
    path.write_text(MOCKER_1P2D.replace("args: {tp-size: 8}", "args: {tp-size: eight}"), encoding="utf-8")
    return path


def _refusals(stderr: str) -> list[tuple[str, int, str]]:
    """(file name, line, rest) of each `srt-tui: error: FILE:LINE: …` line; fails on any other line."""
    out = []
    for line in stderr.splitlines():
        m = re.fullmatch(r"srt-tui: error: (.+?):(\d+): (.+)", line)
        assert m, f"not a located error line: {line!r}"
        out.append((Path(m.group(1)).name, int(m.group(2)), m.group(3)))
    return out


def test_dry_run_refuses_a_tp_that_is_not_a_number_in_every_role(tmp_path: Path) -> None:
    bad = _eight(tmp_path)
    proc = cli("dry-run", "-f", str(bad), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    lines = bad.read_text().splitlines()
    found = _refusals(proc.stderr)
    assert [(f, lines[n - 1].strip()) for f, n, _ in found] == [
        ("bad.yaml", "args: {tp-size: eight}"),
        ("bad.yaml", "args: {tp-size: eight}"),
    ]
    assert [rest for _, _, rest in found] == [
        f"roles.{role}.args.tp-size: `eight` is not a whole number "
        "(fix: give the tensor-parallel size as a whole number, e.g. 8)"
        for role in ("prefill", "decode")
    ]


def test_dry_run_refuses_a_quoted_tp_with_letters_and_a_size_below_one(tmp_path: Path) -> None:
    bad = tmp_path / "sgl.yaml"
    text = H100_1P1D.replace("tp-size: 8", 'tp-size: "8x"', 1).replace("tp-size: 8", "tp-size: 0", 1)
    bad.write_text(text, encoding="utf-8")
    proc = cli("dry-run", "-f", str(bad), "-p", "nvidia-h100", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    rests = [rest for _, _, rest in _refusals(proc.stderr)]
    assert rests[0].startswith("roles.prefill.args.tp-size: `8x` is not a whole number (fix: "), rests
    assert rests[1].startswith("roles.decode.args.tp-size: must be at least 1 (fix: "), rests
    # a size that does not read is not also compared with the GPUs (`TP … = … GPUs`): one refusal per field
    assert len(rests) == 2 and "GPUs" not in proc.stderr


def test_dry_run_reads_every_size_the_engine_declares(tmp_path: Path) -> None:
    """Not only TP: the DP and EP flags an adapter declares are read the same way."""
    bad = tmp_path / "dp.yaml"
    bad.write_text(H100_1P1D.replace("tp-size: 8,", "tp-size: 8, dp-size: two, ep-size: [8],", 1), encoding="utf-8")
    proc = cli("dry-run", "-f", str(bad), "-p", "nvidia-h100", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    rests = [rest for _, _, rest in _refusals(proc.stderr)]
    assert rests == [
        "roles.prefill.args.dp-size: `two` is not a whole number (fix: give the data-parallel size as a whole "
        "number, e.g. 8)",
        "roles.prefill.args.ep-size: `[8]` is not a whole number (fix: give the expert-parallel size as a whole "
        "number, e.g. 8)",
    ]


def test_apply_refuses_before_submitting(tmp_path: Path) -> None:
    bad = _eight(tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "SLURM_CONF": str(tmp_path / "no-slurm.conf")}
    proc = subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "apply", "-f", str(bad), "-p", "local", "--launcher", "local", "-y"]
        + ["-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert [rest.split(":")[0] for _, _, rest in _refusals(proc.stderr)] == [
        "roles.prefill.args.tp-size",
        "roles.decode.args.tp-size",
    ]
    assert not out.exists() or not list(out.iterdir())


def test_dry_run_of_a_directory_refuses_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    _eight(folder)
    (folder / "good.yaml").write_text(MOCKER_1P2D, encoding="utf-8")
    proc = cli("dry-run", "-f", str(folder), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    refused = next(line for line in proc.stdout.splitlines() if "bad.yaml" in line)
    assert refused.startswith("refused") and "roles.prefill.args.tp-size: `eight` is not a whole number" in refused
    assert proc.stdout.rstrip().endswith("2 jobs in 2 files: 1 ok, 1 refused")
