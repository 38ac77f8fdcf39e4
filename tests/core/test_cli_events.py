"""`srt-tui events JOB…`: the job's stages from its directory, oldest first, with how long after the
submission each came; `--json` for tools; a job that is not known is refused naming it, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.cli


def _job(tmp_path: Path, job_id: str, lines: list[str]) -> Path:
    job_dir = tmp_path / job_id
    job_dir.mkdir()
    (job_dir / "job.json").write_text(json.dumps({"job_id": job_id, "name": "mocker-1p2d", "launcher": "slurm"}))
    (job_dir / "status.jsonl").write_text("".join(line + "\n" for line in lines))
    return job_dir


def _events(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "events", *args], capture_output=True, text=True, timeout=60
    )


def test_events_lists_the_stages_oldest_first_with_their_offsets(tmp_path: Path) -> None:
    job_dir = _job(
        tmp_path,
        "4242",
        [
            '{"stage": "submitted", "time": "2026-03-01T11:00:00.000Z", "detail": "slurm job 4242 via sbatch"}',
            '{"stage": "workers healthy", "time": "2026-03-01T11:01:05.000Z", "detail": "3/3"}',
            "a torn line the bounded reader skips",
            '{"stage": "failed", "time": "2026-03-01T12:03:00.000Z", "detail": "worker decode_0 exited with code 1"}',
        ],
    )
    proc = _events(str(job_dir))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("4242 mocker-1p2d")
    assert lines[1].split() == ["TIME", "SINCE", "WHO", "WHAT", "DETAIL"]
    rows = [line.split(None, 4) for line in lines[2:-2]]  # date, clock, since, who, what + detail
    # new-operator pass (2026-12-07): 9 events here, 17 under the Monitor's `e`, unexplained; the footer says
    # what these are and where the workers' health changes are
    assert lines[-2].startswith("3 events from the job directory. Worker health changes are not in it"), lines
    assert "a Monitor records them" in lines[-2] and lines[-1].startswith("while it watches the job, and its `e`")
    assert [r[2] for r in rows] == ["+0s", "+1m05s", "+1h03m"]
    assert [r[4].split("  ")[0] for r in rows] == ["submitted", "workers healthy", "failed"]
    assert rows[-1][4].endswith("worker decode_0 exited with code 1")

    doc = json.loads(_events(str(job_dir), "--json").stdout)
    assert doc[0]["job_id"] == "4242"
    assert [e["what"] for e in doc[0]["events"]] == ["submitted", "workers healthy", "failed"]
    assert doc[0]["events"][0]["at"] == "2026-03-01T11:00:00Z"


def test_a_job_without_events_says_so(tmp_path: Path) -> None:
    proc = _events(str(_job(tmp_path, "4243", [])))
    assert proc.returncode == 0 and "no events yet" in proc.stdout


def test_an_unknown_job_is_refused_naming_it() -> None:
    proc = _events("no-such-job")
    assert proc.returncode == 2
    assert "no-such-job" in proc.stderr and "Traceback" not in proc.stderr


def test_a_slurm_job_cancelled_while_pending_ends_with_its_cancel(tmp_path: Path) -> None:
    """Operator pass: `srt-tui events` of a Slurm job cancelled in the queue showed only `submitted`: its launch
    script never ran to write the `cancelled` stage; the cancel.json srt-tui wrote before scancel says it."""
    job_dir = _job(
        tmp_path,
        "4244",
        ['{"stage": "submitted", "time": "2026-03-01T06:15:00.000Z", "detail": "slurm job 4244 via sbatch"}'],
    )
    (job_dir / "cancel.json").write_text(
        json.dumps({"version": 1, "by": "srt-tui cancel", "at": "2026-03-01T06:17:00Z", "user": "op", "host": "h"})
    )
    proc = _events(str(job_dir))
    assert proc.returncode == 0, proc.stderr
    rows = [line.split(None, 4) for line in proc.stdout.splitlines()[2:-2]]
    assert [r[2] for r in rows] == ["+0s", "+2m00s"]
    assert [r[4].split("  ")[0] for r in rows] == ["submitted", "cancelled"]
    assert rows[-1][4].endswith("cancelled with srt-tui cancel at 06:17 UTC")

    doc = json.loads(_events(str(job_dir), "--json").stdout)
    assert doc[0]["events"][-1] == {
        "at": "2026-03-01T06:17:00Z",
        "who": "job",
        "what": "cancelled",
        "detail": "cancelled with srt-tui cancel at 06:17 UTC",
    }


def test_the_jobs_readiness_says_its_check_interval(tmp_path: Path) -> None:
    """`workers healthy 3/3` and `router ready` are written by the job's health-check loop, which asks once every
    `health_check.interval_seconds` (srtctl's 10 s, kept for parity): up to that long after the fact. The lines say
    so, from plan.json; the count on the way up does not."""
    from tests.monitor.frozen import plan_json

    job_dir = _job(
        tmp_path,
        "4245",
        [
            '{"stage": "submitted", "time": "2026-03-01T11:00:00.000Z", "detail": "slurm job 4245 via sbatch"}',
            '{"stage": "workers healthy", "time": "2026-03-01T11:00:20.000Z", "detail": "1/3"}',
            '{"stage": "workers healthy", "time": "2026-03-01T11:00:30.000Z", "detail": "3/3"}',
            '{"stage": "router ready", "time": "2026-03-01T11:00:40.000Z", "detail": "P 1/1 D 2/2 A 0/0"}',
        ],
    )
    plan = plan_json("mocker/mocker-1p2d.yaml", "local")
    plan["health_check"]["interval_seconds"] = 10
    (job_dir / "plan.json").write_text(json.dumps(plan))
    proc = _events(str(job_dir))
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if " job " in line]
    assert rows[1].endswith("workers healthy  1/3"), rows
    assert rows[2].endswith("workers healthy  3/3 (the job checks every 10 s)"), rows
    assert rows[3].endswith("router ready     P 1/1 D 2/2 A 0/0 (the job checks every 10 s)"), rows


def test_the_jobs_log_says_its_check_interval_before_it_checks(tmp_path: Path) -> None:
    """The job's log (the log viewer's, `wait --log-file`'s) says the interval before its first `workers healthy`."""
    from tests.conftest import REPO

    runtime = REPO / "srt_tui" / "core" / "templates" / "runtime.sh"
    script = (
        'source "$1"; SRT_JOB_DIR=$2; SRT_HEALTH_INTERVAL=10; SRT_HEALTH_ATTEMPTS=1; SRT_HEALTH_HOSTS=(); '
        "SRT_HEALTH_PORTS=(); SRT_NODE_IPS=(); SRT_PIDS=(); srt_wait_workers"
    )
    proc = subprocess.run(
        ["bash", "-c", script, "srt", str(runtime), str(tmp_path)], capture_output=True, text=True, timeout=30
    )
    lines = [line.split(" srt-tui: ", 1)[1] for line in proc.stdout.splitlines() if " srt-tui: " in line]
    first = lines.index("stage: workers healthy 0/0")
    assert first > 0 and lines[first - 1].startswith("asking the workers, then the router, every 10s"), lines
    assert "come up to 10s after the fact" in lines[first - 1]
