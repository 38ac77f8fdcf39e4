"""The automation contract: the InferenceX launcher's own bash sequence (apply --json → jq → wait
--log-file), with `srtctl` replaced by `srt-tui`, drives real mocker jobs on the local Slurm."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, require

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
MOCKER = REPO / "recipes" / "mocker"

# The launcher's lines (benchmarks/…/launch script), with srtctl → srt-tui and the profile/output
# options srt-tui needs. KILL_WORKER=name: once that worker is started, SIGKILL it (from the log).
LAUNCHER = r"""
set -euo pipefail
srt-tui apply -f "$RECIPE" -p local -o "$OUT" --launcher slurm \
    --tags "inferencex,github-actions,${RUN_KEY}" --json > "$WORK/submission.json"
JOB_ID=$(jq -er '.slurm_job_id' "$WORK/submission.json")
[[ "$JOB_ID" =~ ^[0-9]+$ ]]
OUTPUT_DIR=$(jq -er '.output_dir' "$WORK/submission.json")
echo "SRT_SLURM_JOB_ID=$JOB_ID" >&2
if [[ -n "${KILL_WORKER:-}" ]]; then
  (
    for _ in $(seq 1 600); do
      pid=$(sed -n "s/.*started worker ${KILL_WORKER} on [^ ]* (pid \([0-9]*\).*/\1/p" \
            "$OUTPUT_DIR/logs/sweep_$JOB_ID.log" 2>/dev/null | head -1) || true  # no log yet
      if [[ -n "$pid" ]] && grep -qs "stage: router ready" "$OUTPUT_DIR/logs/sweep_$JOB_ID.log"; then
        kill -KILL "$pid"; echo "killed $KILL_WORKER pid $pid" >&2; exit 0
      fi
      sleep 0.2
    done
  ) &
fi
job_rc=0
srt-tui wait "$JOB_ID" --log-file "${OUTPUT_DIR}/logs/sweep_${JOB_ID}.log" > "$WORK/stream.txt" || job_rc=$?
wait
echo "$job_rc" > "$WORK/job_rc"
[[ "$job_rc" -eq 0 ]] || exit "$job_rc"
echo "validation completed successfully" >&2
"""


@pytest.fixture
def work(cluster: Any, tmp_path: Path) -> Iterator[Path]:
    """The launcher's work directory; the job it submitted is cancelled afterwards whatever happened."""
    yield tmp_path
    submission = tmp_path / "submission.json"
    job_id = json.loads(submission.read_text()).get("slurm_job_id") if submission.is_file() else None
    if job_id:
        subprocess.run(["scancel", str(job_id)], capture_output=True, timeout=30)


def _launch(tmp_path: Path, recipe: Path, kill_worker: str = "") -> tuple[subprocess.CompletedProcess[str], Path]:
    require(shutil.which("jq") is not None, "jq (the launcher reads submission.json with it): apt-get install jq")
    bindir = tmp_path / "bin"  # `srt-tui` on PATH running this tree, as an installed console script would
    bindir.mkdir()
    (bindir / "srt-tui").write_text(f'#!/bin/sh\nexec {sys.executable} -m srt_tui.cli "$@"\n')
    (bindir / "srt-tui").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bindir}:{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "RECIPE": str(recipe),
        "OUT": str(tmp_path / "out"),
        "WORK": str(tmp_path),
        "RUN_KEY": "run-1",
        "KILL_WORKER": kill_worker,
    }
    proc = subprocess.run(["bash", "-c", LAUNCHER], env=env, capture_output=True, text=True, timeout=240)
    return proc, tmp_path


def _submission(work: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((work / "submission.json").read_text())
    return record


def test_the_launcher_sequence_streams_the_log_and_exits_0_when_the_benchmark_finishes(work: Path) -> None:
    proc, _ = _launch(work, MOCKER / "mocker-agg-direct.yaml")
    sub = _submission(work)
    assert proc.returncode == 0, proc.stderr
    assert "validation completed successfully" in proc.stderr
    out = Path(sub["output_dir"])
    assert sub["status"] == "submitted" and sub["job_name"] == "mocker-agg-direct"
    assert sub["slurm_job_id"] == sub["job_id"] == out.name
    assert sub["metadata_path"] == str(out / "job.json")
    assert sub["config_path"] == str(MOCKER / "mocker-agg-direct.yaml")
    assert sub["tags"] == ["inferencex", "github-actions", "run-1"]
    assert json.loads((out / "job.json").read_text())["tags"] == sub["tags"]  # recorded, not only echoed
    stream = (work / "stream.txt").read_text()
    log = out / "logs" / f"sweep_{sub['slurm_job_id']}.log"
    assert stream == log.read_text()  # the whole log, from its start, nothing else on stdout
    assert "stage: completed" in stream and f"starting job {sub['slurm_job_id']}" in stream


def test_the_launcher_sequence_exits_non_zero_when_a_worker_is_killed(work: Path) -> None:
    proc, _ = _launch(work, MOCKER / "mocker-2p1d.yaml", kill_worker="decode_0")
    assert "killed decode_0" in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    assert (work / "job_rc").read_text().strip() == "1"
    stream = (work / "stream.txt").read_text()
    assert "stage: failed" in stream and "decode_0" in stream.split("stage: failed", 1)[1]
    assert "validation completed successfully" not in proc.stderr
