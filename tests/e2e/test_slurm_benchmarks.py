"""Every benchmark type of srtctl's recipe library runs as a job's benchmark stage on the real local Slurm,
against mocker workers, and leaves its results where srtctl leaves them (or is refused at validation:
tests/core/test_core_benchmark.py). Also: a running sa-bench shows its progress in `status`, and an ended
job without a benchmark keeps its final counters in a fresh `status`.

The accuracy types run a stand-in for `sglang.test.run_eval` (tests/e2e/standins/sglang-eval: sglang needs
torch and a GPU); mooncake-router and trace-replay run the real aiperf from its own virtualenv
(`make aiperf-venv`; in the main environment it would downgrade textual), offline: a word-level tokenizer
built here, the traces written here (mooncake-router reads srtctl's TRACE_DIR instead of downloading).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cluster import ClusterInfo
from tests.conftest import REPO, require
from tests.e2e.jobtools import apply, events, send_requests, srt, status, wait_ready

pytestmark = [pytest.mark.slurm]
STANDINS = REPO / "tests" / "e2e" / "standins"
AIPERF_VENV = Path(os.environ.get("SRT_AIPERF_VENV") or REPO / ".venv-aiperf")
TOKENIZER_PY = """import sys
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
vocab = {"[UNK]": 0, "<s>": 1, "</s>": 2, **{f"w{i}": 3 + i for i in range(1000)}}
tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
tok.pre_tokenizer, tok.decoder = pre_tokenizers.WhitespaceSplit(), decoders.WordPiece()
PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", bos_token="<s>", eos_token="</s>").save_pretrained(
    sys.argv[1])
"""
#: type -> the benchmark block (TRACES / TOKENIZER are filled in per run)
BENCHMARKS = {
    "gsm8k": "{type: gsm8k, num_examples: 3, num_shots: 2}",
    "gpqa": "{type: gpqa, num_examples: 3}",
    "mmlu": "{type: mmlu, num_examples: 3}",
    "longbenchv2": "{type: longbenchv2, num_examples: 3, max_context_length: 4096}",
    "custom": "{type: custom, command: 'curl -sf http://$SRT_FRONTEND_HOST:$SRT_FRONTEND_PORT/v1/models'}",
    "mooncake-router": "{type: mooncake-router, mooncake_workload: conversation, env: {TRACE_DIR: 'TRACES'}}",
    "trace-replay": "{type: trace-replay, trace_file: 'TRACES/replay.jsonl', concurrencies: [1, 2]}",
}
#: every type a local-Slurm test runs as a job's benchmark stage: these, sa-bench (test_slurm_jobs.py) and
#: manual (below); tests/core/test_core_srtctl_recipes.py checks that the library's other types are refused
E2E_TYPES = frozenset({*BENCHMARKS, "sa-bench", "manual"})
ACCURACY = {"gsm8k": "gsm8k", "gpqa": "gpqa", "mmlu": "mmlu", "longbenchv2": "longbench_v2"}
AIPERF = ("mooncake-router", "trace-replay")


def recipe(tmp: Path, name: str, benchmark: str, model: str = "mock-model", args: str = "tp-size: 8") -> Path:
    """A one-worker mocker job serving its own public port (mocker-agg-direct's shape)."""
    path = tmp / f"{name}.yaml"
    path.write_text(
        f"schema: 2\nname: {name}\nmodel: {{path: '{model}', served_name: mock-model}}\n"
        "frontend: {type: sglang, enable_multiple_frontends: false}\nengine: mocker\n"
        f"roles:\n  agg: {{nodes: 1, workers: 1, args: {{{args}}}}}\nbenchmark: {benchmark}\n"
    )
    return path


def _traces(where: Path) -> None:
    """A 6-request Mooncake trace (one 512-token block each, 100 ms apart) under both names the jobs read."""
    where.mkdir(parents=True)
    lines = [
        json.dumps({"timestamp": i * 100, "input_length": 40, "output_length": 4, "hash_ids": [i]}) for i in range(6)
    ]
    for name in ("conversation_trace.jsonl", "replay.jsonl"):
        (where / name).write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def typed_jobs(cluster: ClusterInfo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, Path]]]:
    """One job per benchmark type, all submitted up front so Slurm runs them side by side."""
    tmp = tmp_path_factory.mktemp("bench-types")
    aiperf = AIPERF_VENV / "bin" / "aiperf"
    tokenizer, traces, bin_dir = tmp / "tokenizer", tmp / "traces", tmp / "bin"
    have_aiperf = aiperf.exists()
    if have_aiperf:
        subprocess.run(
            [str(AIPERF_VENV / "bin" / "python"), "-c", TOKENIZER_PY, str(tokenizer)], check=True, timeout=120
        )
        bin_dir.mkdir()
        (bin_dir / "aiperf").symlink_to(aiperf)  # aiperf alone on PATH: the job's python3 stays the system one
        _traces(traces)
    started: dict[str, tuple[str, Path]] = {}
    with pytest.MonkeyPatch.context() as mp:  # sbatch exports the submitting environment to every step
        mp.setenv("PYTHONPATH", f"{STANDINS / 'sglang-eval'}:{REPO}")
        mp.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
        for kind, block in BENCHMARKS.items():
            if kind in AIPERF and not have_aiperf:
                continue
            model = str(tokenizer) if kind in AIPERF else "mock-model"
            path = recipe(tmp, f"bt-{kind}", block.replace("TRACES", str(traces)), model)
            started[kind] = apply(str(path), "-p", "local", "--launcher", "slurm")
    try:
        yield started
    finally:
        for _, job_dir in started.values():
            srt("cancel", str(job_dir), check=False)
        for made in Path("/tmp").glob("*_mock-model-standin*.json"):
            made.unlink(missing_ok=True)


def _done(job_dir: Path) -> None:
    proc = srt("wait", str(job_dir), "--for", "done", "--timeout", "240", "-q", check=False, timeout=300)
    log = job_dir / "logs" / "benchmark.log"
    assert proc.returncode == 0, f"{status(str(job_dir))}\n{log.read_text() if log.exists() else ''}"


@pytest.mark.parametrize("kind", list(BENCHMARKS))
def test_each_benchmark_type_runs_and_leaves_srtctls_result_files(
    typed_jobs: dict[str, tuple[str, Path]], kind: str
) -> None:
    if kind in AIPERF:
        require((AIPERF_VENV / "bin" / "aiperf").exists(), f"aiperf in {AIPERF_VENV} (make aiperf-venv)")
    _, job_dir = typed_jobs[kind]  # named by directory: each test has a state dir (job index) of its own
    _done(job_dir)
    logs = job_dir / "logs"
    if kind in ACCURACY:  # srtctl's accuracy layout: the evaluation's score file copied into logs/accuracy
        (score,) = [json.loads(p.read_text()) for p in (logs / "accuracy").glob(f"{ACCURACY[kind]}_*.json")]
        assert score["eval_name"] == ACCURACY[kind] and score["score"] == 1.0
        assert score["answer"].split()[0] == "agg_0"  # the job's own worker answered
        assert "--num-examples" in score["flags"] and score["flags"][score["flags"].index("--num-examples") + 1] == "3"
    elif kind == "custom":  # the recipe's command, with srtctl's SRT_FRONTEND_* pointing at this job
        assert '"id": "mock-model"' in (logs / "benchmark.log").read_text().replace('"id":"', '"id": "')
    else:  # aiperf's layout under logs/artifacts, read by `srt-tui results`
        runs = sorted(p.parent.name for p in logs.glob("artifacts/*/profile_export_aiperf.json"))
        rows = json.loads(srt("results", str(job_dir), "--json").stdout)
        expect = [(0, 6)] if kind == "mooncake-router" else [(1, 6), (2, 6)]
        assert [(r["concurrency"], r["requests_ok"]) for r in rows] == expect, runs
        assert all(r["requests_failed"] == 0 and r["output_tok_s"] > 0 and r["ttft_p99_ms"] > 0 for r in rows)
        assert status(str(job_dir))["requests"] == sum(n for _, n in expect)  # the ended job keeps its answer
        if kind == "mooncake-router":  # and srtctl's roll-up of it
            rollup = json.loads((logs / "benchmark-rollup.json").read_text())
            assert rollup["benchmark_type"] == kind and rollup["config"]["workload"] == "conversation"
            assert rollup["data"]["request_count"]["avg"] == 6


def _progress(job_dir: Path) -> dict[str, Any] | None:
    """The benchmark's progress file as it stands (None before it exists; it is replaced atomically)."""
    try:
        doc = json.loads((job_dir / "logs" / "benchmark-progress.json").read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _set_delay(job_dir: Path, ms: int) -> None:
    """Every mock worker's base latency per request (its /mock/delay control)."""
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    for worker in endpoints["workers"]:
        httpx.post(worker["url"] + "/mock/delay", params={"ms": str(ms)}, timeout=10).raise_for_status()


def test_a_running_sa_bench_shows_its_progress_in_status(jobs: list[str], tmp_path: Path) -> None:
    """Three concurrency steps of slow mocker requests: `status` shows the step, requests done of total and
    an ETA while they run, then the job ends with every request counted. No race with the run: once the
    job's own progress file says a step of concurrency 2 or more began, its worker slows down (1.5 s a
    request, then 20 s once one has ended) until `status` has shown the step under way, then returns to its
    pace."""
    block = "{type: sa-bench, isl: 16, osl: 8, concurrencies: [1, 2, 4], num_prompts_mult: 12, num_warmup_mult: 1}"
    job_id, job_dir = apply(
        str(recipe(tmp_path, "progress", block, args="tp-size: 8, token-latency-ms: 25")),
        "-p",
        "local",
        "--launcher",
        "slurm",
    )
    jobs.append(job_id)
    deadline = time.monotonic() + 120
    doc = _progress(job_dir)
    while not (doc and doc.get("phase") == "measure" and doc.get("concurrency", 0) >= 2):
        assert time.monotonic() < deadline and not (job_dir / "logs" / "benchmark-rollup.json").exists(), doc
        time.sleep(0.05)
        doc = _progress(job_dir)
    _set_delay(job_dir, 1500)  # the step's first requests end within seconds, the rest wait
    while not (doc and doc.get("phase") == "measure" and doc.get("done", 0) >= 1):
        assert time.monotonic() < deadline, doc
        time.sleep(0.05)
        doc = _progress(job_dir)
    _set_delay(job_dir, 20000)  # held mid-step while `status` (slow under load) reads it
    try:
        snap = status(job_id)
        seen = [snap["bench"]] if snap["bench"] is not None else []
        texts = [srt("status", job_id).stdout]
    finally:
        _set_delay(job_dir, 0)
    while not snap["final"] and time.monotonic() < deadline + 60:
        time.sleep(1)
        snap = status(job_id)
    assert snap["stage"] == "completed", snap
    mid = [b for b in seen if b["phase"] == "measure" and 0 < b["done"] < b["total"]]
    assert mid, seen
    assert all(b["steps"] == 3 and b["total_all"] == 12 * 7 for b in seen)
    assert {b["concurrency"] for b in mid} & {2, 4} and any(b["eta_s"] for b in mid)
    assert any("ETA" in t and "req" in t for t in texts), texts
    assert snap["requests"] == 84 and snap["errors"] == 0 and snap["bench"] is None


def test_an_ended_job_without_benchmark_keeps_its_counters_in_a_fresh_status(jobs: list[str]) -> None:
    """A manual job (it just serves) gets 9 requests and is cancelled; `status` from a process with no
    counter cache still shows the 9 and the router's registrations, from the job's final scrape."""
    job_id, job_dir = apply(str(REPO / "recipes" / "mocker" / "mocker-agg2.yaml"), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    send_requests(endpoints["router"]["url"], 9)
    # manual, as srtctl means it: no benchmark step, the job serves until it is stopped
    assert events(job_dir)[-1] == "serving" and not (job_dir / "logs" / "benchmark.log").exists()
    srt("cancel", job_id)
    deadline = time.monotonic() + 60
    while not status(job_id)["final"] and time.monotonic() < deadline:
        time.sleep(0.5)
    (Path(os.environ["SRT_TUI_STATE_DIR"]) / "counters.json").unlink(missing_ok=True)  # no monitor's memory
    snap = json.loads(srt("status", str(job_dir), "--json").stdout)[0]
    assert snap["stage"] == "cancelled" and (snap["requests"], snap["errors"]) == (9, 0), snap
    assert snap["router"]["registered"] == {"agg": 2}
    assert sum(w["requests_total"] for w in snap["workers"]) == 9
