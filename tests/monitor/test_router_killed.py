"""A router killed with `kill -9` is said killed, as a worker is (s36 operator pass): it was blamed on a WARN line of
its log (`Failed to download tokenizer…`, cut mid-word), and the headline said `router router …`. The job's own
record of the step's end is what runtime.sh's `srt_check_alive` writes; the real router:
tests/e2e/test_local_degraded.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from srt_tui.core.jobdir.events import Event
from srt_tui.monitor import cells
from srt_tui.monitor.files.jobfiles import LINE_MAX, error_line, explains_failure
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.stage import exit_words, step_exit
from tests.conftest import REPO
from tests.monitor.tui_apps import frozen_app

RUNTIME = REPO / "srt_tui" / "core" / "templates" / "runtime.sh"
#: sglang-router's log as it was before the kill: its warning, then requests served
ROUTER_LOG = [
    "2026-12-08 01:04:20  WARN smg::tokenizer: Failed to download tokenizer for mock-model: 404 Not Found",
    "2026-12-08 01:04:48  INFO http_request{method=GET uri=/workers}: finished processing request",
]
#: the job script from `serving` on: the router step, killed by SIGKILL, then the liveness check
SCRIPT = """
source "$1"; SRT_JOB_DIR=$2; log=$2/logs/router.log
srt_event serving "serving at http://10.251.0.11:8000"
bash -c 'printf "%s\\n" "$@"; echo ready; exec sleep 60' log "${@:3}" >"$log" 2>&1 & pid=$!
SRT_PIDS=("$pid") SRT_PID_NAMES=(router) SRT_PID_LOGS=("$log") SRT_PID_KINDS=(router)
until grep -q ready "$log"; do sleep 0.05; done
kill -KILL "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
srt_check_alive
"""


def _killed_router(tmp_path: Path) -> Path:
    job = tmp_path / "local-36"
    (job / "logs").mkdir(parents=True)
    router = {"type": "sglang-router", "name": "router", "kind": "router", "node_index": 0, "gpus": [], "port": 8000,
              "log": "logs/router.log"}  # fmt: skip
    plan = {"topology": "agg0", "nodes": 1, "gpus_per_node": 8, "processes": [], "router": router}
    (job / "plan.json").write_text(json.dumps(plan))
    subprocess.run(["bash", "-c", SCRIPT, "srt", str(RUNTIME), str(job), *ROUTER_LOG], env={"PATH": "/usr/bin:/bin"},
                   timeout=30, check=False, capture_output=True)  # fmt: skip
    return job


def test_warning_lines_never_explain_a_failure() -> None:
    assert not explains_failure(ROUTER_LOG[0])
    assert not explains_failure("WARNING 03-01 11:40:02 [config.py:1] Failed to load generation config")
    assert explains_failure("2026-12-08 01:04:20 ERROR smg::core: failed to bind 0.0.0.0:8000")


def test_a_quoted_line_is_cut_at_a_word() -> None:
    line = "ERROR " + " ".join(["tokenizer"] * 60)
    said = error_line([line])
    assert len(said) <= LINE_MAX and said.endswith(" …") and said.removesuffix(" …").endswith("tokenizer")


def test_the_job_records_the_router_by_its_name_once(tmp_path: Path) -> None:
    """`srt-tui events` prints the job's own record, which read `router router exited with code 137` (runtime.sh
    wrote the step's kind, then its name); a worker keeps its kind, `worker decode_0`."""
    job = _killed_router(tmp_path)
    recorded = json.loads((job / "status.jsonl").read_text().splitlines()[-1])["detail"]
    assert recorded == f"router exited with code 137; log: {job / 'logs' / 'router.log'}"


def test_an_older_jobs_router_router_still_reads_once() -> None:
    """Job directories written before runtime.sh named the router once keep their words: read as one step."""
    said = "router router exited with code 137; log: /j/r.log"
    old = [Event("serving", "2026-12-08T01:04:00Z", ""), Event("failed", "2026-12-08T01:05:00Z", said)]
    assert exit_words(old[-1].detail, True) == "router was killed (signal 9); log: /j/r.log"
    ended = step_exit(old)
    assert ended is not None and (ended.kind, ended.name, ended.signal) == ("router", "router", 9)


async def test_a_killed_router_is_said_killed_by_its_signal(tmp_path: Path) -> None:
    job = _killed_router(tmp_path)
    monitor = Monitor(None, budget_s=0.5)
    try:
        snap = (await monitor.refresh({"local-36": job}))[0]
    finally:
        await monitor.aclose()
    assert snap.stage == "failed"
    # the router named once, never `router router`
    assert snap.stage_detail.startswith("router was killed (signal 9); log: "), snap.stage_detail
    assert cells.failure_why(snap) == [
        "no error in its log; it was killed by signal 9 (SIGKILL: out of memory? scancel? kill -9?)"
    ]
    # the Problems panel: the router's log, the signal, then its last lines as a worker's are (none as the reason)
    app = frozen_app([snap], open_job="local-36")
    async with app.run_test(size=(160, 36)) as pilot:
        await pilot.pause()
        panel = str(app.screen.query_one("#job-problems").render())
    at = [panel.index(text) for text in ("router: ", "killed by signal 9", "Failed to download tokenizer", "ready")]
    assert at == sorted(at), panel
