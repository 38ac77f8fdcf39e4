"""The local launcher runs a real plan on this machine without Slurm, with the real sglang-router."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import (
    apply,
    events,
    job_pids,
    job_story,
    send_requests,
    srt,
    status,
    wait_no_pids,
    wait_ready,
)

pytestmark = pytest.mark.routers


def test_local_launcher_runs_2p1d_to_ready_and_cancels_cleanly() -> None:
    job_id, job_dir = apply(str(REPO / "recipes/mocker/mocker-2p1d.yaml"), "--launcher", "local", "-p", "local")
    try:
        assert job_id.startswith("local-")
        wait_ready(job_id)
        snap = status(job_id)
        assert snap["slurm_state"] == "RUNNING"
        assert snap["router"]["registered"] == {"prefill": 2, "decode": 1}
        assert {w["name"]: w["health"] for w in snap["workers"]} == {
            "prefill_0": "healthy",
            "prefill_1": "healthy",
            "decode_0": "healthy",
        }
        endpoints = json.loads((job_dir / "endpoints.json").read_text())
        answered = send_requests(endpoints["router"]["url"])
        assert set(answered) == {"decode_0"}  # P/D: the decode leg answers
        # each prefill worker really got its own half of node 0's GPUs
        urls = {w["name"]: w["url"] for w in endpoints["workers"]}
        assert (
            urls["prefill_0"].rsplit(":", 1)[0]
            == urls["prefill_1"].rsplit(":", 1)[0]
            != urls["decode_0"].rsplit(":", 1)[0]
        )  # two prefills share node 0's address, decode has node 1's
        for name, mask in (("prefill_0", "0,1,2,3"), ("prefill_1", "4,5,6,7")):
            info = httpx.get(f"{urls[name]}/server_info", timeout=5).json()["srt_mock"]
            assert info["name"] == name and info["visible_devices"] == mask
        order = events(job_dir)
        assert order.index("workers healthy") < order.index("router starting") < order.index("router ready")
    finally:
        cancelled = srt("cancel", job_id, check=False)
    assert wait_no_pids(job_dir) == []
    ended = status(job_id)
    story = f"{ended}\ncancel: {cancelled}\n{job_story(job_dir)}"
    # srt-tui cancelled it and says so (cancel.json, written before the signal), not `stopped by a signal (…)`
    assert ended["stage"] == "cancelled" and ended["stage_detail"].startswith("cancelled with srt-tui cancel at "), (
        story
    )
    last = json.loads((job_dir / "status.jsonl").read_text().splitlines()[-1])
    assert last["detail"] == "cancelled with srt-tui (cancel.json)", story  # the job's own log knows it too


def test_failed_worker_fails_the_local_job_with_its_log(tmp_path: pytest.TempPathFactory) -> None:
    recipe = tmp_path / "dies.yaml"  # type: ignore[operator]
    recipe.write_text(
        "name: dies\nmodel: {path: mock-model}\nengine: mocker\n"
        "roles:\n  agg: {nodes: 1, workers: 1, args: {exit-after: 1}}\nfrontend: {type: none}\n"
    )
    job_id, job_dir = apply(str(recipe), "--launcher", "local", "-p", "local")
    proc = srt("wait", job_id, "--for", "done", "--timeout", "60", "-q", check=False, timeout=90)
    assert proc.returncode == 1
    snap = status(job_id)
    assert snap["stage"] == "failed"
    assert "agg_0" in snap["stage_detail"] and str(job_dir / "logs/agg_0.log") in snap["stage_detail"]
    assert job_pids(job_dir) == [] or wait_no_pids(job_dir) == []


STANDIN_RUN_EVAL = '''"""Stand-in for sglang.test.run_eval (not installable here): one real chat completion through
--base-url, then a result file in /tmp named as sglang names it, holding the arguments it got."""
import argparse, json, os, urllib.request

p = argparse.ArgumentParser()
for flag in ("--base-url", "--model", "--eval-name", "--num-examples", "--max-tokens", "--repeat", "--num-threads"):
    p.add_argument(flag)
args = p.parse_args()
body = {"model": args.model, "messages": [{"role": "user", "content": "2+2?"}], "max_tokens": 3}
req = urllib.request.Request(args.base_url + "/v1/chat/completions", json.dumps(body).encode(),
                             {"Content-Type": "application/json"})
answer = json.load(urllib.request.urlopen(req, timeout=30))["choices"][0]["message"]["content"]
with open(f"/tmp/{args.eval_name}_srt-standin-{os.getpid()}.json", "w") as fh:
    json.dump({"score": 1.0, "args": vars(args), "answer": answer}, fh)
'''


def test_an_accuracy_benchmark_runs_its_evaluation_and_keeps_the_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gpqa renders srtctl's `sglang.test.run_eval` call; the job runs it against its own server and copies
    the result file into logs/accuracy, as srtctl's gpqa/bench.sh does."""
    standin = tmp_path / "standin"
    (standin / "sglang" / "test").mkdir(parents=True)
    (standin / "sglang" / "__init__.py").write_text("")
    (standin / "sglang" / "test" / "__init__.py").write_text("")
    (standin / "sglang" / "test" / "run_eval.py").write_text(STANDIN_RUN_EVAL)
    monkeypatch.setenv("PYTHONPATH", f"{standin}:{REPO}")
    recipe = tmp_path / "gpqa.yaml"
    text = (REPO / "recipes/mocker/mocker-agg-direct.yaml").read_text().split("benchmark:")[0]
    recipe.write_text(text.replace("mocker-agg-direct", "gpqa-direct") + "benchmark: {type: gpqa, num_examples: 7}\n")
    job_id, job_dir = apply(str(recipe), "--launcher", "local", "-p", "local")
    proc = srt("wait", job_id, "--for", "done", "--timeout", "60", "-q", check=False, timeout=90)
    made = sorted(p for p in (job_dir / "logs" / "accuracy").glob("gpqa_srt-standin-*.json"))
    try:
        assert proc.returncode == 0, (job_dir / "logs" / "benchmark.log").read_text()
        assert status(job_id)["stage"] == "completed"
        (result,) = [json.loads(p.read_text()) for p in made]
        endpoints = json.loads((job_dir / "endpoints.json").read_text())
        assert result["args"] == {
            "base_url": endpoints["public_url"],
            "model": "mock-model",
            "eval_name": "gpqa",
            "num_examples": "7",
            "max_tokens": "32768",
            "repeat": "8",
            "num_threads": "128",
        }
        assert result["answer"].split()[0] == "agg_0"  # the job's own worker answered
    finally:
        for p in made:
            (Path("/tmp") / p.name).unlink(missing_ok=True)
