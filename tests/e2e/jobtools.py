"""Helpers for end-to-end tests: run the real `srt-tui` CLI, send requests, find a job's processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

SRT = [sys.executable, "-m", "srt_tui.cli"]


def srt(*args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run `srt-tui ARGS` as an operator would."""
    proc = subprocess.run([*SRT, *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"srt-tui {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def apply(recipe: str, *extra: str) -> tuple[str, Path]:
    """`srt-tui apply --json -y`; returns (job id, job dir)."""
    out = json.loads(srt("apply", "-f", recipe, "-y", "--json", *extra).stdout)
    return out["job_id"], Path(out["job_dir"])


def status(job_id: str) -> dict[str, Any]:
    """`srt-tui status JOB --json`, the one snapshot."""
    snaps: list[dict[str, Any]] = json.loads(srt("status", job_id, "--json").stdout)
    return snaps[0]


def wait_ready(job_id: str, timeout: float = 90) -> None:
    """`srt-tui wait JOB --for ready`, failing with the job's status and logs if it does not get there."""
    proc = srt("wait", job_id, "--for", "ready", "--timeout", str(timeout), "-q", check=False, timeout=timeout + 30)
    if proc.returncode != 0:
        raise AssertionError(f"job {job_id} not ready (rc {proc.returncode}): {proc.stderr}\n{status(job_id)}")


def send_requests(url: str, n: int = 40, model: str = "mock-model") -> list[str]:
    """n completions through the router; returns who answered each (first generated token)."""
    answered = []
    with httpx.Client(timeout=30) as client:
        for i in range(n):
            path = "/v1/chat/completions" if i % 2 else "/v1/completions"
            body: dict[str, Any] = {"model": model, "max_tokens": 4}
            if i % 2:
                body["messages"] = [{"role": "user", "content": f"hello {i}"}]
            else:
                body["prompt"] = f"hello {i}"
            r = client.post(url + path, json=body)
            assert r.status_code == 200, f"request {i} -> {r.status_code}: {r.text[:300]}"
            choice = r.json()["choices"][0]
            text = choice.get("text") or choice.get("message", {}).get("content", "")
            answered.append(text.split()[0] if text else "")
    return answered


def job_pids(job_dir: Path) -> list[int]:
    """Live processes of a job on any node (the test cluster shares one PID namespace)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            env = (proc / "environ").read_bytes()
            cmd = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if (str(job_dir).encode() in env or str(job_dir).encode() in cmd) and int(proc.name) != os.getpid():
            pids.append(int(proc.name))
    return pids


def wait_no_pids(job_dir: Path, timeout: float = 10) -> list[int]:
    """Processes still alive after `timeout` seconds (empty when all are gone)."""
    deadline = time.monotonic() + timeout
    left = job_pids(job_dir)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = job_pids(job_dir)
    return left


def job_story(job_dir: Path, lines: int = 40) -> str:
    """The job's events and the end of its launch log, for a failure message: what the script saw."""
    parts = []
    for name in ("status.jsonl", "logs/launch.log"):
        try:
            text = (job_dir / name).read_text(errors="replace").splitlines()[-lines:]
        except OSError as err:
            text = [f"({err})"]
        parts.append(f"--- {name}\n" + "\n".join(text))
    return "\n".join(parts)


def events(job_dir: Path) -> list[str]:
    """Stages from status.jsonl, in order."""
    lines = (job_dir / "status.jsonl").read_text().splitlines()
    return [json.loads(x)["stage"] for x in lines]
