"""srt-tui's sa-bench client (the file a job runs) against a real mock worker: srtctl's files and fields."""

from __future__ import annotations

import csv
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from srt_tui.bench.sa_bench import Gpus, write_rollup
from tests.conftest import require
from tests.mock.mockprocs import Launcher, Worker, child_env, free_port

CLIENT = Path(__file__).resolve().parents[2] / "srt_tui" / "bench" / "sa_bench.py"

#: every key srtctl's benchmark_serving.py writes per concurrency (sa-bench/benchmark_serving.py, --save-result)
SRTCTL_KEYS = {
    "date",
    "backend",
    "model_id",
    "tokenizer_id",
    "best_of",
    "num_prompts",
    "request_rate",
    "burstiness",
    "max_concurrency",
    "duration",
    "completed",
    "total_input_tokens",
    "total_output_tokens",
    "request_throughput",
    "request_goodput",
    "output_throughput",
    "peak_output_tokens_per_s",
    "total_token_throughput",
    "input_lens",
    "output_lens",
    "ttfts",
    "itls",
    "generated_texts",
    "errors",
    "reuse_http_connections",
} | {f"{s}_{m}_ms" for s in ("mean", "median", "std", "p99") for m in ("ttft", "tpot", "itl", "e2el")}
#: srtctl's rollup.py columns, in order
ROLLUP_COLUMNS = (
    "Config,Total GPU Count,Decode GPU Count,Total Working GPU Count,Decode Working GPU Count,"
    "Prefill Working GPU Count,Concurrency,Total Token Throughput,Output Token Throughput,Median TTFT,Median TPOT,"
    "Median ITL,P90 Decode Running Requests,Output Token Throughput per User,Total Token Throughput per GPU"
)


@pytest.fixture(scope="module")
def worker(launcher: Launcher) -> Worker:
    return launcher.wait_worker(launcher.start_worker("regular", name="sa0"))


def _run(logs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, str(CLIENT), "--logs", str(logs), "--model", "mock-model", "--tokenizer", "mock-model"]
    return subprocess.run([*argv, *args], env=child_env(), capture_output=True, text=True, timeout=120)


def _level(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_results_have_srtctls_layout_fields_and_rollup(worker: Worker, tmp_path: Path) -> None:
    proc = _run(
        tmp_path,
        *("--url", worker.url, "--isl", "40", "--osl", "6", "--concurrencies", "2x3", "--num-prompts-mult", "4"),
        *("--num-warmup-mult", "1", "--random-range-ratio", "0.5", "--use-chat-template"),
        *("--total-gpus", "12", "--prefill-gpus", "4", "--decode-gpus", "8", "--disaggregated", "--config-name", "j1"),
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "smoke test /v1/chat/completions: HTTP 200" in proc.stdout
    out = tmp_path / "sa-bench_isl_40_osl_6"
    assert sorted(p.name for p in out.iterdir()) == [
        "results_concurrency_2_gpus_12_ctx_4_gen_8.json",
        "results_concurrency_3_gpus_12_ctx_4_gen_8.json",
    ]
    for c in (2, 3):
        level = _level(out / f"results_concurrency_{c}_gpus_12_ctx_4_gen_8.json")
        assert set(level) >= SRTCTL_KEYS, SRTCTL_KEYS - set(level)
        assert (level["max_concurrency"], level["num_prompts"], level["completed"], level["failed"]) == (
            c,
            4 * c,
            4 * c,
            0,
        )
        assert level["errors"] == [""] * 4 * c and level["request_rate"] == "inf"
        # the mocker counts words: every prompt is within srtctl's [isl x ratio, isl], every answer within osl
        assert all(20 <= n <= 40 for n in level["input_lens"]) and level["total_input_tokens"] == sum(
            level["input_lens"]
        )
        assert all(3 <= n <= 6 for n in level["output_lens"]) and level["total_output_tokens"] == sum(
            level["output_lens"]
        )
        assert {t.split()[0] for t in level["generated_texts"]} == {"sa0"}
        assert level["backend"] == "openai-chat"  # no tokenizer here: the server applies the chat template
        assert level["output_throughput"] > 0 and 0 < level["median_ttft_ms"] <= level["p99_ttft_ms"]
        assert level["p50_tpot_ms"] == level["median_tpot_ms"] and len(level["itls"][0]) == level["output_lens"][0] - 1
    rollup = json.loads((tmp_path / "benchmark-rollup.json").read_text())
    assert rollup["benchmark_type"] == "sa-bench" and rollup["config"] == {"model": "mock-model", "isl": 40, "osl": 6}
    assert [r["concurrency"] for r in rollup["runs"]] == [2, 3]
    assert set(rollup["runs"][0]) == {
        "concurrency",
        "throughput_toks",
        "request_throughput",
        "ttft_mean_ms",
        "ttft_p99_ms",
        "tpot_mean_ms",
        "tpot_p99_ms",
        "itl_mean_ms",
        "itl_p99_ms",
        "e2el_mean_ms",
        "completed_requests",
        "total_input_tokens",
        "total_output_tokens",
    }
    with (tmp_path / "benchmark-rollup.csv").open() as fh:
        assert fh.readline().strip() == ROLLUP_COLUMNS
    rows = list(csv.DictReader((tmp_path / "benchmark-rollup.csv").open()))
    level = _level(out / "results_concurrency_3_gpus_12_ctx_4_gen_8.json")
    row = rows[1]
    assert (row["Config"], row["Total GPU Count"], row["Decode GPU Count"], row["Prefill Working GPU Count"]) == (
        "j1",
        "12",
        "8",
        "4",
    )
    assert float(row["Output Token Throughput per User"]) == pytest.approx(1000 / level["median_tpot_ms"], rel=1e-3)
    assert float(row["Total Token Throughput per GPU"]) == pytest.approx(level["total_token_throughput"] / 12, rel=1e-3)


def test_completions_endpoint_pooled_connections_and_a_request_rate(worker: Worker, tmp_path: Path) -> None:
    before = worker.get("/mock/stats").json()
    proc = _run(
        tmp_path,
        *("--url", worker.url, "--isl", "8", "--osl", "4", "--concurrencies", "4", "--num-prompts-mult", "3"),
        *("--num-warmup-mult", "0", "--req-rate", "200", "--reuse-http-connections", "--total-gpus", "8"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "http_connection_mode=pooled" in proc.stdout
    level = _level(tmp_path / "sa-bench_isl_8_osl_4" / "results_concurrency_4_gpus_8.json")
    assert level["completed"] == 12 and level["backend"] == "dynamo" and level["request_rate"] == 200.0
    assert level["reuse_http_connections"] is True
    after = worker.get("/mock/stats").json()

    def ok(stats: dict[str, Any], path: str) -> int:
        return int(stats["paths"].get(path, {}).get("ok", 0))

    assert ok(after, "/v1/completions") - ok(before, "/v1/completions") == 12  # measured, no warm-up
    assert ok(after, "/v1/chat/completions") - ok(before, "/v1/chat/completions") == 1  # the smoke test


def test_custom_dataset_reads_srtctls_two_line_formats(worker: Worker, tmp_path: Path) -> None:
    data = tmp_path / "reqs.jsonl"
    lines = [
        {"input": {"messages": [{"role": "user", "content": "a b c d"}], "max_tokens": 3, "num_tokens": 11}},
        {"prompt": "x y z", "expected_output_len": 2, "prompt_len": 7},
    ]
    data.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    proc = _run(
        tmp_path,
        *("--url", worker.url, "--concurrencies", "1", "--num-prompts-mult", "2", "--num-warmup-mult", "0"),
        *("--dataset-name", "custom", "--dataset-path", str(data), "--total-gpus", "8"),
    )
    assert proc.returncode == 0, proc.stderr
    level = _level(tmp_path / "sa-bench_custom_reqs" / "results_concurrency_1_gpus_8.json")
    assert sorted(zip(level["input_lens"], level["output_lens"])) == [(7, 2), (11, 3)]


def test_every_failed_request_is_recorded_and_fails_the_run(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    proc = _run(tmp_path, "--url", url, "--isl", "4", "--osl", "2", "--concurrencies", "2", "--num-prompts-mult", "2")
    assert proc.returncode == 1
    level = _level(tmp_path / "sa-bench_isl_4_osl_2" / "results_concurrency_2_gpus_0.json")
    assert (level["completed"], level["failed"]) == (0, 4) and all("ConnectionRefused" in e for e in level["errors"])


def test_settings_it_cannot_use_exit_2_with_one_line(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--url", "http://127.0.0.1:1", "--concurrencies", "1", "--custom-tokenizer", "nope.Tok")
    assert proc.returncode == 2 and "benchmark.custom_tokenizer 'nope.Tok'" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = _run(tmp_path, "--url", "http://127.0.0.1:1", "--concurrencies", "4x0")
    assert proc.returncode == 2 and "concurrencies must be positive" in proc.stderr


def test_rollup_reads_results_srtctl_wrote(tmp_path: Path) -> None:
    """An older srtctl file (percentile lists, `total_input`) next to a new one: both rolled up."""
    d = tmp_path / "sa-bench_isl_1024_osl_1024"
    d.mkdir()
    old = {"max_concurrency": 8, "output_throughput": 100.0, "percentiles_ttft_ms": [[99, 42.0]], "total_input": 5}
    new = {
        "max_concurrency": 16,
        "output_throughput": 180.0,
        "p99_ttft_ms": 50.0,
        "total_input_tokens": 9,
        "median_tpot_ms": 20.0,
        "total_token_throughput": 400.0,
    }
    (d / "results_concurrency_8_gpus_8.json").write_text(json.dumps(old))
    (d / "results_concurrency_16_gpus_8.json").write_text(json.dumps(new))
    write_rollup(tmp_path, 1024, 1024, Gpus(8, 0, 0, False), "srtctl-job")
    runs = json.loads((tmp_path / "benchmark-rollup.json").read_text())["runs"]
    assert [(r["concurrency"], r["ttft_p99_ms"], r["total_input_tokens"]) for r in runs] == [
        (8, 42.0, 5),
        (16, 50.0, 9),
    ]
    rows = list(csv.DictReader((tmp_path / "benchmark-rollup.csv").open()))
    assert rows[1]["Output Token Throughput per User"] == "50" and rows[1]["Total Token Throughput per GPU"] == "50"


def _local_tokenizer(path: Path) -> Path:
    """A word-level tokenizer with a chat template, built here (no hub download): one word is one token."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {f"t{i}": i for i in range(1000)} | {"[UNK]": 1000, "<u>": 1001, "<a>": 1002}
    inner = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    inner.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=inner, unk_token="[UNK]")  # type: ignore[no-untyped-call]
    tok.chat_template = (
        "{% for m in messages %}<u> {{ m['content'] }}{% endfor %}{% if add_generation_prompt %} <a>{% endif %}"
    )
    tok.save_pretrained(path)
    return path


def test_with_a_tokenizer_prompts_have_exact_lengths_and_the_client_applies_the_template(
    worker: Worker, tmp_path: Path
) -> None:
    # the engine containers' case (the stdlib path is tested above); transformers comes with ai-dynamo
    require(importlib.util.find_spec("transformers") is not None, "transformers is not installed")
    tok = _local_tokenizer(tmp_path / "tok")
    proc = subprocess.run(
        [sys.executable, str(CLIENT), "--logs", str(tmp_path), "--model", "mock-model", "--tokenizer", str(tok)]
        + ["--url", worker.url, "--isl", "30", "--osl", "5", "--concurrencies", "2", "--num-prompts-mult", "2"]
        + ["--num-warmup-mult", "0", "--random-range-ratio", "1", "--use-chat-template", "--total-gpus", "8"],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert f"tokenizer={tok}" in proc.stdout
    level = _level(tmp_path / "sa-bench_isl_30_osl_5" / "results_concurrency_2_gpus_8.json")
    assert level["backend"] == "dynamo" and level["input_lens"] == [30] * 4 and level["output_lens"] == [5] * 4
    (last,) = worker.get("/mock/requests", n="1").json()["requests"]
    words = last["body"]["prompt"].split()  # /v1/completions with the template applied by the client
    assert words[0] == "<u>" and words[-1] == "<a>" and len(words) == 30
