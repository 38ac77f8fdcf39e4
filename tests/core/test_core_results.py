"""The result model reads srtctl's sa-bench layout (built here from its documented format) and srt-tui's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from srt_tui.bench import sa_bench
from srt_tui.core.results.read import read_results


def srtctl_level(concurrency: int, completed: int, errors: list[str], duration: float) -> dict[str, Any]:
    """One result file as srtctl's benchmark_serving.py saves it: no `failed` key, p99 only by default."""
    return {
        "date": "20250101-120000",
        "backend": "dynamo",
        "model_id": "deepseek-r1",
        "tokenizer_id": "/model",
        "num_prompts": len(errors),
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": concurrency,
        "duration": duration,
        "completed": completed,
        "total_input_tokens": 1024 * completed,
        "total_output_tokens": 256 * completed,
        "request_throughput": completed / duration,
        "request_goodput": None,
        "output_throughput": 256 * completed / duration,
        "peak_output_tokens_per_s": 300.0,
        "total_token_throughput": 1280 * completed / duration,
        "errors": errors,
        "mean_ttft_ms": 120.0,
        "median_ttft_ms": 110.0,
        "std_ttft_ms": 5.0,
        "p99_ttft_ms": 180.0,
        "mean_tpot_ms": 21.0,
        "median_tpot_ms": 20.0,
        "std_tpot_ms": 1.0,
        "p99_tpot_ms": 25.0,
        "mean_itl_ms": 20.5,
        "median_itl_ms": 20.0,
        "std_itl_ms": 1.0,
        "p99_itl_ms": 30.0,
        "mean_e2el_ms": 5400.0,
        "median_e2el_ms": 5300.0,
        "std_e2el_ms": 100.0,
        "p99_e2el_ms": 5900.0,
    }


def test_srtctls_layout_is_read_per_concurrency(tmp_path: Path) -> None:
    """srtctl's logs/sa-bench_isl_<isl>_osl_<osl>/results_concurrency_<c>_gpus_<n>_ctx_<p>_gen_<d>.json."""
    run = tmp_path / "12345" / "logs" / "sa-bench_isl_1024_osl_256"
    run.mkdir(parents=True)
    (run / "results_concurrency_64_gpus_16_ctx_4_gen_12.json").write_text(
        json.dumps(srtctl_level(64, 638, [""] * 638 + ["HTTP 500"] * 2, 100.0))
    )
    (run / "results_concurrency_8_gpus_16_ctx_4_gen_12.json").write_text(
        json.dumps(srtctl_level(8, 80, [""] * 80, 40.0))
    )
    (run / "notes.json").write_text("{}")  # not a level file: ignored
    res = read_results(tmp_path / "12345")
    assert [r.name for r in res.runs] == ["sa-bench_isl_1024_osl_256"]
    low, high = res.levels
    assert (low.concurrency, high.concurrency) == (8, 64)
    assert (high.completed, high.failed, high.gpus) == (638, 2, 16)
    assert high.request_throughput == pytest.approx(6.38)
    assert high.input_throughput == pytest.approx(1024 * 638 / 100.0)
    assert high.output_per_gpu == pytest.approx(256 * 638 / 100.0 / 16)
    assert high.output_per_user == pytest.approx(1000.0 / 20.0)
    assert (high.ttft.mean, high.ttft.p50, high.ttft.p90, high.ttft.p99) == (120.0, 110.0, None, 180.0)
    assert high.e2el.p99 == 5900.0
    assert res.totals() == (718, 2)


def test_older_percentile_lists_and_flat_layout(tmp_path: Path) -> None:
    """A flat directory (results beside the metadata) and the legacy percentiles_<m>_ms [[p, v]] lists."""
    run = tmp_path / "sa-bench_isl_128_osl_128"
    run.mkdir()
    level = srtctl_level(4, 40, [""] * 40, 10.0)
    del level["p99_tpot_ms"], level["median_tpot_ms"]
    level["percentiles_tpot_ms"] = [[50, 9.0], [90, 11.0], [99, 12.5]]
    (run / "results_concurrency_4_gpus_8.json").write_text(json.dumps(level))
    (lv,) = read_results(tmp_path).levels
    assert (lv.tpot.p50, lv.tpot.p90, lv.tpot.p99) == (9.0, 11.0, 12.5)
    assert lv.output_per_user == pytest.approx(1000.0 / 9.0)


def test_rollup_alone_is_read_with_the_gpu_count_from_srtctls_metadata(tmp_path: Path) -> None:
    """When only benchmark-rollup.json survives, its runs are the levels; GPUs from the submit metadata."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (tmp_path / "12345.json").write_text(
        json.dumps({"job_id": "12345", "resources": {"gpus_per_node": 8, "prefill_nodes": 1, "decode_nodes": 2}})
    )
    rollup = {
        "benchmark_type": "sa-bench",
        "config": {"model": "m", "isl": 1024, "osl": 1024},
        "runs": [
            {
                "concurrency": 16,
                "throughput_toks": 4800.0,
                "request_throughput": 4.0,
                "ttft_mean_ms": 90.0,
                "ttft_p99_ms": 150.0,
                "tpot_mean_ms": 12.0,
                "completed_requests": 160,
            },
            {"concurrency": 2, "throughput_toks": 800.0, "request_throughput": 0.8, "completed_requests": 20},
        ],
    }
    (logs / "benchmark-rollup.json").write_text(json.dumps(rollup))
    res = read_results(tmp_path)
    assert [r.name for r in res.runs] == ["rollup"]
    assert [lv.concurrency for lv in res.levels] == [2, 16]
    top = res.levels[1]
    assert (top.completed, top.failed, top.gpus) == (160, None, 24)
    assert top.output_per_gpu == pytest.approx(200.0)
    assert (top.ttft.mean, top.ttft.p99) == (90.0, 150.0)


def test_what_srt_tuis_client_writes_is_read(tmp_path: Path) -> None:
    """srt-tui's sa-bench: its level metrics, file name and roll-up, read back through the same model."""
    tok = sa_bench.WordTokenizer()
    outs = []
    for i in range(5):
        o = sa_bench.Output(prompt_len=100, success=i != 4, latency=1.0, ttft=0.1, itl=[0.1] * 9, chunks=["t1 "] * 10)
        o.error = "" if o.success else "HTTP 503"
        outs.append(o)
    gpus = sa_bench.Gpus(total=2, prefill=1, decode=1, disaggregated=True)
    out_dir = sa_bench.result_dir(tmp_path / "logs", 128, 10, "random", None)
    out_dir.mkdir(parents=True)
    data = {"max_concurrency": 3, "num_prompts": 5, **sa_bench.level_result(outs, 2.0, tok)}
    (out_dir / sa_bench.result_name(3, gpus)).write_text(json.dumps(data))
    sa_bench.write_rollup(tmp_path / "logs", 128, 10, gpus, "job")
    (lv,) = read_results(tmp_path).levels
    assert (lv.concurrency, lv.completed, lv.failed, lv.gpus) == (3, 4, 1, 2)
    assert lv.request_throughput == pytest.approx(2.0)
    assert lv.output_throughput == pytest.approx(20.0)
    assert lv.tpot.p50 == pytest.approx(100.0)
    assert lv.ttft.p90 == pytest.approx(100.0)


def test_no_results_yet(tmp_path: Path) -> None:
    (tmp_path / "logs" / "sa-bench_isl_1_osl_1").mkdir(parents=True)
    (tmp_path / "logs" / "sa-bench_isl_1_osl_1" / "results_concurrency_1_gpus_1.json").write_text("{trunc")
    res = read_results(tmp_path)
    assert res.runs == () and res.totals() is None
