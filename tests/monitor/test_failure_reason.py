"""Why a job failed, as `srt-tui status` and the Problems panel say it (issue 21, operator pass 9): the reason line is
a line that explains a failure (error, traceback or exit text), never a ready or info line; a log with none (a
worker killed by SIGKILL writes nothing) says so with what the job recorded; the panel's lines keep file order."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from srt_tui.monitor import cells
from srt_tui.monitor.files.jobfiles import error_line, explains_failure
from srt_tui.monitor.model import LogRef
from srt_tui.monitor.snapshot.build import failing_tail
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.stage import StepExit
from srt_tui.tui.monitor.job_view import log_lines
from tests.conftest import REPO
from tests.monitor.tui_apps import frozen_app

#: the mock worker's whole log, as agg_1 wrote it before `kill -9` (op9's repro on Slurm)
MOCK_LOG = [
    "mock worker agg_1 role=regular flavor=sglang port=6132 pid=5878 CUDA_VISIBLE_DEVICES=4,5,6,7",
    "loading model mock-model (startup delay 0s)",
    "ready: agg_1 serving mock-model on http://10.247.0.11:6132",
]


@pytest.mark.parametrize(
    "line",
    [
        "main.py: error: unrecognized arguments: --bogus-flag",
        "ModuleNotFoundError: No module named 'vllm'",
        "setsid: failed to execute nats-server: No such file or directory",
        "exit-after 3s reached: agg_0 exits with code 3",
        "Traceback (most recent call last):",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "bash: line 1: sglang.launch_server: command not found",
        "Segmentation fault (core dumped)",
    ],
)
def test_error_traceback_and_exit_lines_explain_a_failure(line: str) -> None:
    assert explains_failure(line)


@pytest.mark.parametrize(
    "line",
    [
        *MOCK_LOG,
        "[2026-03-01 11:40:02] INFO tokenizer manager stopped",
        "INFO 03-01 11:40:02 [loggers.py:123] Engine 000: 0 requests failed, 0 errors",  # vLLM's stats line
        "2026-03-01 11:40:02,123 - INFO - retries: 0 (failed: 0)",
    ],
)
def test_ready_and_info_lines_never_explain_a_failure(line: str) -> None:
    assert not explains_failure(line)


def test_a_log_with_no_error_has_no_reason_line(tmp_path: Path) -> None:
    """The killed worker's last line, `ready: agg_1 serving …`, was quoted as the reason (the fallback to the
    log's last line); now there is none, and an error above healthy lines is still found."""
    log = tmp_path / "agg_1.log"
    log.write_text("\n".join(MOCK_LOG) + "\n")
    assert error_line(failing_tail(str(log), (LogRef("agg_1", "worker", str(log)),))) == ""
    assert error_line(["RuntimeError: NCCL timeout", *MOCK_LOG]) == "RuntimeError: NCCL timeout"


def test_the_note_says_what_the_job_recorded() -> None:
    killed = StepExit("worker", "agg_1", 137, "2026-12-07T15:45:45.079Z", served=True)
    assert killed.health_words() == "killed (signal 9)"
    assert (
        killed.silent_log()
        == "no error in its log; it was killed by signal 9 (SIGKILL: out of memory? scancel? kill -9?)"
    )
    assert StepExit("worker", "agg_1", 2, "", served=False).silent_log() == "no error in its log; it exited with code 2"
    assert StepExit("worker", "agg_1", 139, "", served=True).silent_log().endswith("(SIGSEGV: a crash in native code)")


RUNTIME = REPO / "srt_tui" / "core" / "templates" / "runtime.sh"
#: the job script from `serving` on: the mock worker's log, its step killed by SIGKILL, then the liveness check
SCRIPT = """
source "$1"; SRT_JOB_DIR=$2; log=$2/logs/agg_1.log
srt_event serving "serving at http://10.251.0.11:8000"
bash -c 'printf "%s\\n" "$@"; exec sleep 60' log "${@:3}" >"$log" 2>&1 & pid=$!
SRT_PIDS=("$pid") SRT_PID_NAMES=(agg_1) SRT_PID_LOGS=("$log") SRT_PID_KINDS=(worker)
until grep -q ready "$log"; do sleep 0.05; done
kill -KILL "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
srt_check_alive
"""


def _killed_job(tmp_path: Path) -> Path:
    """A job directory whose `status.jsonl` the runtime wrote for its worker agg_1, killed by SIGKILL after it was
    ready (its log: the mock worker's three lines, nothing after them)."""
    job = tmp_path / "local-16"
    (job / "logs").mkdir(parents=True)
    worker = {"name": "agg_1", "role": "agg", "kind": "worker", "node_index": 0, "gpus": [4, 5, 6, 7], "port": 6132,
              "log": "logs/agg_1.log"}  # fmt: skip
    plan = {"topology": "agg1", "nodes": 1, "gpus_per_node": 8, "processes": [worker], "router": None}
    (job / "plan.json").write_text(json.dumps(plan))
    subprocess.run(["bash", "-c", SCRIPT, "srt", str(RUNTIME), str(job), *MOCK_LOG], env={"PATH": "/usr/bin:/bin"},
                   timeout=30, check=False, capture_output=True)  # fmt: skip
    return job


async def test_status_says_the_log_has_no_error_and_how_it_was_killed(tmp_path: Path) -> None:
    """`srt-tui status 16` printed `failed: worker agg_1 was killed (signal 9); log: …` and then `ready: agg_1
    serving …`; the line under it now says the log explains nothing, and what killed it."""
    job = _killed_job(tmp_path)
    monitor = Monitor(None, budget_s=0.5)
    try:
        snap = (await monitor.refresh({"local-16": job}))[0]
    finally:
        await monitor.aclose()
    lines = cells.problems(snap)
    failed = next(i for i, line in enumerate(lines) if line.startswith("failed: worker agg_1 was killed (signal 9)"))
    assert lines[failed + 1] == (
        "  no error in its log; it was killed by signal 9 (SIGKILL: out of memory? scancel? kill -9?)"
    ), lines
    assert not any("ready:" in line for line in lines), lines
    # the Problems panel: the note first, then the log's last lines in file order, none of them as the reason
    app = frozen_app([snap], open_job="local-16")
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        panel = str(app.screen.query_one("#job-problems").render())
    at = [panel.index(text) for text in ("no error in its log", "mock worker agg_1", "loading model", "ready: agg_1")]
    assert at == sorted(at), panel


def test_the_panels_lines_keep_file_order() -> None:
    """The reason was put first wherever it was in the log (`ready`, then the lines above it)."""
    tail = ("a", "b", "RuntimeError: boom", "c")
    assert log_lines(tail, "RuntimeError: boom") == [("b", False), ("RuntimeError: boom", True), ("c", False)]
    # a reason above the last lines comes first, as in the file; a note comes before the lines it speaks for
    assert log_lines(("RuntimeError: boom", "x", "y", "z"), "RuntimeError: boom")[0] == ("RuntimeError: boom", True)
    assert log_lines(tuple(MOCK_LOG), "", "no error in its log") == [
        ("no error in its log", True),
        *((line, False) for line in MOCK_LOG),
    ]
