"""A worker the operator killed read `failed: worker decode_0 exited with code 0` (operator pass on the job view):
what the job script records for such a worker, read back by the real Monitor, says it was killed, or that it
stopped with code 0 while the job served. The sentence is written by runtime.sh's own `srt_check_alive`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.stage import exit_words
from tests.conftest import REPO

RUNTIME = REPO / "srt_tui" / "core" / "templates" / "runtime.sh"
#: an engine that stops cleanly on SIGTERM (the mock engine, SGLang), ready once it says so
GRACEFUL = "trap 'exit 0' TERM; echo ready; while :; do sleep 0.1; done"
#: the job script from `serving` on: one worker step, stopped by the operator, then the script's liveness check
SCRIPT = """
source "$1"; SRT_JOB_DIR=$2; log=$2/logs/decode_0.log
srt_event serving "serving at http://10.251.0.11:8000"
bash -c "$GRACEFUL_OR_NOT" >"$log" 2>&1 & pid=$!
SRT_PIDS=("$pid") SRT_PID_NAMES=(decode_0) SRT_PID_LOGS=("$log") SRT_PID_KINDS=(worker)
until grep -q ready "$log"; do sleep 0.05; done
kill "-$SIGNAL" "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
srt_check_alive
"""


def _job_killed(tmp_path: Path, engine: str, signal: str) -> Path:
    """A job directory whose `status.jsonl` the runtime wrote for its worker ``engine`` stopped by ``signal``."""
    job = tmp_path / "local-9"
    (job / "logs").mkdir(parents=True)
    worker = {"name": "decode_0", "role": "decode", "kind": "worker", "node_index": 0, "gpus": [0], "port": 6100,
              "log": "logs/decode_0.log"}  # fmt: skip
    plan = {"topology": "agg1", "nodes": 1, "gpus_per_node": 8, "processes": [worker], "router": None}
    (job / "plan.json").write_text(json.dumps(plan))
    env = {"PATH": "/usr/bin:/bin", "GRACEFUL_OR_NOT": engine, "SIGNAL": signal}
    subprocess.run(["bash", "-c", SCRIPT, "srt", str(RUNTIME), str(job)], env=env, timeout=30, check=False,
                   capture_output=True)  # fmt: skip
    return job


async def _snapshot(job: Path) -> JobSnapshot:
    monitor = Monitor(None, budget_s=0.5)
    try:
        return (await monitor.refresh({"local-9": job}))[0]
    finally:
        await monitor.aclose()


@pytest.mark.parametrize(
    ("engine", "signal", "words"),
    [
        pytest.param("echo ready; exec sleep 60", "KILL", "was killed (signal 9)", id="sigkill"),
        pytest.param("echo ready; exec sleep 60", "TERM", "was killed (signal 15)", id="sigterm"),
        pytest.param(GRACEFUL, "TERM", "exited (code 0) while the job was serving", id="graceful"),
    ],
)
async def test_a_killed_worker_never_reads_as_exited_with_code_0(
    tmp_path: Path, engine: str, signal: str, words: str
) -> None:
    job = _job_killed(tmp_path, engine, signal)
    recorded = json.loads((job / "status.jsonl").read_text().splitlines()[-1])["detail"]
    assert recorded.startswith("worker decode_0 exited with code "), recorded  # what the job's files say
    snap = await _snapshot(job)
    assert snap.stage == "failed" and snap.stage_detail.startswith(f"worker decode_0 {words}; log: "), snap.stage_detail
    assert snap.failing_worker == "decode_0"  # the log is still found from the sentence
    assert any(line.startswith(f"failed: worker decode_0 {words}") for line in cells.problems(snap))


def test_other_exits_keep_their_words() -> None:
    """A real exit code is the engine's own; a code 0 before the job served says so."""
    assert exit_words("worker agg_0 exited with code 3; log: /j/logs/agg_0.log", True) == (
        "worker agg_0 exited with code 3; log: /j/logs/agg_0.log"
    )
    assert exit_words("infra nats exited with code 0; log: /j/logs/nats.log", False) == (
        "infra nats exited (code 0) while the job was starting; log: /j/logs/nats.log"
    )
    assert exit_words("workers not healthy after 120 checks every 1s", True) == (
        "workers not healthy after 120 checks every 1s"
    )
