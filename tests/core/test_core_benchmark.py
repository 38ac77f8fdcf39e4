"""The benchmark step: each srtctl benchmark type renders the command srtctl's runner builds from the same
keys (srt-tui's own sa-bench client for sa-bench), every accepted key changes what runs, the rest is refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from srt_tui.core.api import prepare
from srt_tui.core.benchmark import BENCHMARKS
from srt_tui.core.benchmark.types.mooncake_router import MOONCAKE_SH
from srt_tui.core.benchmark.types.router import ROUTER_SH
from srt_tui.core.benchmark.types.run_eval import ACCURACY_SH
from srt_tui.core.benchmark.types.sglang_bench import PER_CONCURRENCY_SH
from srt_tui.core.benchmark.types.trace_replay import TRACE_REPLAY_SH
from srt_tui.core.errors import SrtError
from srt_tui.core.jobdir.write import job_files
from srt_tui.core.spec.recipe import BenchmarkSpec
from tests.core.core_helpers import RECIPES_DIR, flag_value, need

NV_1P1D = RECIPES_DIR / "nvidia" / "h100-1p1d-sglang.yaml"  # sglang 1P1D behind sglang-router, 8+8 GPUs
NV_AGG = RECIPES_DIR / "nvidia" / "h100-agg-sglang.yaml"
VLLM = RECIPES_DIR / "nvidia" / "h100-2p1d-vllm-router.yaml"
CLIENT = Path(__file__).resolve().parents[2] / "srt_tui" / "bench" / "sa_bench.py"


def _recipe(tmp_path: Path, base: Path, bench: dict[str, Any]) -> Path:
    data = yaml.safe_load(base.read_text())
    data["benchmark"] = bench
    path = tmp_path / f"{base.stem}-{bench.get('type', 'manual')}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _step(tmp_path: Path, bench: dict[str, Any], base: Path = NV_1P1D, profile: str = "nvidia-h100") -> Any:
    plan = prepare(_recipe(tmp_path, base, bench), profile).plan
    assert plan.benchmark is not None
    return plan.benchmark


def _refusals(tmp_path: Path, bench: dict[str, Any], base: Path = NV_1P1D) -> str:
    with pytest.raises(SrtError) as err:
        prepare(_recipe(tmp_path, base, bench), "nvidia-h100")
    return str(err.value)


# ---- sa-bench ---------------------------------------------------------------------------------------


def test_sa_bench_runs_srt_tuis_client_with_every_key(tmp_path: Path) -> None:
    bench = {
        "type": "sa-bench",
        "isl": 2048,
        "osl": 256,
        "concurrencies": "4x8x16",
        "req_rate": 12.5,
        "random_range_ratio": 0.5,
        "num_prompts_mult": 3,
        "num_warmup_mult": 0,
        "custom_tokenizer": "pkg.mod.Tok",
        "use_chat_template": False,
        "reuse_http_connections": True,
    }
    step = _step(tmp_path, bench)
    argv = step.command
    assert argv[:2] == ("python3", "<logs>/srt-bench/sa_bench.py")
    expect = {
        "--isl": "2048",
        "--osl": "256",
        "--concurrencies": "4x8x16",
        "--req-rate": "12.5",
        "--random-range-ratio": "0.5",
        "--num-prompts-mult": "3",
        "--num-warmup-mult": "0",
        "--custom-tokenizer": "pkg.mod.Tok",
        "--dataset-name": "random",
        "--model": "Qwen3-32B",
        "--tokenizer": "/model",
        "--total-gpus": "16",
        "--prefill-gpus": "8",
        "--decode-gpus": "8",
        "--logs": "<logs>",
    }
    assert {flag: flag_value(argv, flag) for flag in expect} == expect
    env = dict(step.env)
    assert flag_value(argv, "--url") == f"http://{env['SRT_FRONTEND_HOST']}:{env['SRT_FRONTEND_PORT']}"
    assert "--use-chat-template" not in argv and "--reuse-http-connections" in argv and "--disaggregated" in argv


def test_sa_bench_defaults_are_srtctls(tmp_path: Path) -> None:
    argv = _step(tmp_path, {"type": "sa-bench", "isl": 128, "osl": 64, "concurrencies": [2]}, NV_AGG).command
    assert flag_value(argv, "--random-range-ratio") == "0.8"
    assert flag_value(argv, "--num-prompts-mult") == "10"
    assert flag_value(argv, "--num-warmup-mult") == "2"
    assert flag_value(argv, "--req-rate") == "inf"
    assert "--use-chat-template" in argv and "--reuse-http-connections" not in argv
    assert "--disaggregated" not in argv and flag_value(argv, "--total-gpus") == "8"


def test_sa_bench_custom_dataset_and_slow_down_reach_the_client(tmp_path: Path) -> None:
    bench = {
        "type": "sa-bench",
        "dataset_name": "custom",
        "dataset_path": "/data/reqs.jsonl",
        "concurrencies": [4],
        "slow_down_sleep_time": 0.5,
        "slow_down_wait_time": 30,
    }
    plan = prepare(_recipe(tmp_path, NV_1P1D, bench), "nvidia-h100").plan
    argv = plan.benchmark.command  # type: ignore[union-attr]
    assert flag_value(argv, "--dataset-name") == "custom" and flag_value(argv, "--dataset-path") == "/data/reqs.jsonl"
    decode = next(w for w in plan.leaders() if w.role == "decode")
    assert flag_value(argv, "--slow-down-server") == decode.url
    assert (flag_value(argv, "--slow-down-sleep-time"), flag_value(argv, "--slow-down-wait-time")) == ("0.5", "30")


def test_the_client_ships_in_the_job_directory_only_for_sa_bench(tmp_path: Path) -> None:
    prep = prepare(
        _recipe(tmp_path, NV_1P1D, {"type": "sa-bench", "isl": 8, "osl": 8, "concurrencies": [1]}), "nvidia-h100"
    )
    files = job_files(prep.job, prep.plan, prep.script)
    assert files["logs/srt-bench/sa_bench.py"] == CLIENT.read_text()
    prep = prepare(_recipe(tmp_path, NV_1P1D, {"type": "gpqa"}), "nvidia-h100")
    files = job_files(prep.job, prep.plan, prep.script)
    assert sorted(name for name in files if name.startswith("logs/")) == ["logs/srtctl-metadata.json"]


def test_every_type_gets_the_frontend_address_and_custom_gets_the_worker_endpoints(tmp_path: Path) -> None:
    plan = prepare(
        _recipe(tmp_path, NV_1P1D, {"type": "custom", "command": "env", "env": {"X": "1"}}), "nvidia-h100"
    ).plan
    env = dict(plan.benchmark.env)  # type: ignore[union-attr]
    router = plan.router.process  # type: ignore[union-attr]
    assert f"http://{env['SRT_FRONTEND_HOST']}:{env['SRT_FRONTEND_PORT']}" == router.url
    assert env["SRTCTL_FRONTEND_TYPE"] == "sglang" and env["X"] == "1"
    for w in plan.leaders():
        host_port = (w.url or "").removeprefix("http://")
        assert env[f"SRT_{w.role.upper()}_ENDPOINTS"] == host_port
        assert env[f"SRT_{w.role.upper()}_IPS"] == host_port.rpartition(":")[0]
    assert "SRT_AGG_IPS" not in env
    assert plan.benchmark.command == ("bash", "-lc", "env")  # type: ignore[union-attr]
    gpqa = dict(_step(tmp_path, {"type": "gpqa"}).env)
    assert "SRT_FRONTEND_HOST" in gpqa and "SRT_PREFILL_IPS" not in gpqa  # srtctl: worker lists for custom only


def test_behind_dynamo_the_worker_endpoints_are_their_system_ports(tmp_path: Path) -> None:
    """srtctl: Dynamo workers publish health and metrics on DYN_SYSTEM_PORT, so that is the endpoint."""
    data = yaml.safe_load(NV_1P1D.read_text())
    data["frontend"] = {"type": "dynamo"}
    data["benchmark"] = {"type": "custom", "command": "env"}
    path = tmp_path / "dyn.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    plan = prepare(path, "nvidia-h100").plan
    env = dict(plan.benchmark.env)  # type: ignore[union-attr]
    for w in plan.leaders():
        assert env[f"SRT_{w.role.upper()}_ENDPOINTS"] == f"<ip:node{w.node_index}>:{w.ports['sys']}"
        assert w.ports["sys"] != w.port
    metrics = env["AIPERF_SERVER_METRICS_URLS"].split(",")
    assert metrics == [f"http://<ip:node{w.node_index}>:{w.ports['sys']}/metrics" for w in plan.leaders()]


def test_job_metadata_names_what_srtctls_rollup_looks_up(tmp_path: Path) -> None:
    from srt_tui.core.jobdir.benchmark_metadata import srtctl_metadata

    bench = {"type": "sa-bench", "isl": 128, "osl": 64, "concurrencies": [2]}
    prep = prepare(_recipe(tmp_path, RECIPES_DIR / "nvidia" / "h100-1p2d-sglang.yaml", bench), "nvidia-h100")
    meta = srtctl_metadata(prep.plan, prep.job.recipe.benchmark)
    assert meta == {
        "job_name": "h100-1p2d-sglang",
        "backend_type": "sglang",
        "resources": {
            "gpus_per_node": 8,
            "prefill_nodes": 1,
            "prefill_workers": 1,
            "gpus_per_prefill": 8,
            "decode_nodes": 2,
            "decode_workers": 2,
            "gpus_per_decode": 8,
        },
        "benchmark": {"type": "sa-bench", "isl": 128, "osl": 64},
    }
    files = job_files(prep.job, prep.plan, prep.script)
    assert json.loads(files["logs/srtctl-metadata.json"]) == meta
    agg = prepare(_recipe(tmp_path, NV_AGG, bench), "nvidia-h100")
    resources = srtctl_metadata(agg.plan, agg.job.recipe.benchmark)["resources"]
    assert {k: v for k, v in resources.items() if k.startswith(("agg", "gpus_per_agg"))} == {
        "agg_nodes": 1,
        "agg_workers": 2,  # two TP4 workers share the node
        "gpus_per_agg": 4,
    }


def test_manual_runs_no_benchmark(tmp_path: Path) -> None:
    plan = prepare(_recipe(tmp_path, NV_1P1D, {"type": "manual"}), "nvidia-h100").plan
    assert plan.benchmark is None


def test_a_key_manual_does_not_read_changes_nothing_so_it_is_a_warning(tmp_path: Path) -> None:
    """`req_rate` (or any benchmark key) left on a `manual` benchmark: the job is the same, so it runs, saying so."""
    bench = {"type": "manual", "req_rate": 4, "isl": 1024, "env": {"A": "1"}}
    plan = prepare(_recipe(tmp_path, NV_1P1D, bench), "nvidia-h100").plan
    assert plan.benchmark is None
    said = {w.field: w for w in plan.warnings if w.field.startswith("benchmark.")}
    assert set(said) == {"benchmark.req_rate", "benchmark.isl", "benchmark.env"}
    assert "changes nothing about the job" in said["benchmark.req_rate"].message
    assert "set benchmark.type" in said["benchmark.req_rate"].hint
    with pytest.raises(SrtError, match=r"benchmark.num_shots: `gpqa` does not use num_shots"):  # a run ignoring it
        prepare(_recipe(tmp_path, NV_1P1D, {"type": "gpqa", "num_shots": 3}), "nvidia-h100")


# ---- the other types ---------------------------------------------------------------------------------


def _tail(argv: tuple[str, ...], marker: str) -> list[str]:
    return list(argv[argv.index(marker) :])


def test_accuracy_evals_run_sglangs_run_eval_with_srtctls_defaults(tmp_path: Path) -> None:
    gsm8k = _step(tmp_path, {"type": "gsm8k", "num_examples": 50, "num_shots": 8, "temperature": 0.6, "top_k": 20})
    args = _tail(gsm8k.command, "sglang.test.run_eval")
    assert gsm8k.command[:2] == ("bash", "-c") and gsm8k.command[2] == ACCURACY_SH
    assert flag_value(args, "--eval-name") == "gsm8k" and flag_value(args, "--num-examples") == "50"
    assert flag_value(args, "--num-shots") == "8" and flag_value(args, "--max-tokens") == "16384"
    assert flag_value(args, "--num-threads") == "512" and flag_value(args, "--temperature") == "0.6"
    assert flag_value(args, "--top-k") == "20" and "--top-p" not in args
    assert flag_value(args, "--model") == "Qwen3-32B"
    gpqa = _tail(_step(tmp_path, {"type": "gpqa", "repeat": 2}).command, "sglang.test.run_eval")
    assert [
        flag_value(gpqa, f) for f in ("--eval-name", "--num-examples", "--max-tokens", "--repeat", "--num-threads")
    ] == [
        "gpqa",
        "198",
        "32768",
        "2",
        "128",
    ]
    mmlu = _tail(_step(tmp_path, {"type": "mmlu", "num_threads": 64}).command, "sglang.test.run_eval")
    assert [
        flag_value(mmlu, f) for f in ("--eval-name", "--num-examples", "--max-tokens", "--repeat", "--num-threads")
    ] == [
        "mmlu",
        "200",
        "2048",
        "8",
        "64",
    ]
    lb = _step(tmp_path, {"type": "longbenchv2", "categories": ["single", "multi"], "max_context_length": 64000})
    args = _tail(lb.command, "sglang.test.run_eval")
    assert flag_value(args, "--eval-name") == "longbench_v2" and flag_value(args, "--categories") == "single,multi"
    assert flag_value(args, "--max-context-length") == "64000" and "--num-examples" not in args


def test_aiperf_types_pass_their_keys_as_positional_values(tmp_path: Path) -> None:
    mc = _step(
        tmp_path,
        {
            "type": "mooncake-router",
            "mooncake_workload": "toolagent",
            "ttft_threshold_ms": 1500,
            "aiperf_args": {"workers-max": 8, "verbose": True, "quiet": False},
        },
    )
    assert mc.command[2] == MOONCAKE_SH
    assert list(mc.command[4:]) == [
        mc.command[4],
        "Qwen3-32B",
        "toolagent",
        "1500",
        "25",
        "/model",
        "<logs>",
        "",
        "--workers-max",
        "8",
        "--verbose",
    ]
    assert mc.command[4].startswith("http://<ip:node0>:")
    metrics = dict(mc.env)["AIPERF_SERVER_METRICS_URLS"].split(",")  # srtctl's worker scrape for aiperf
    assert metrics == ["http://<ip:node0>:6100/metrics", "http://<ip:node1>:6100/metrics"]
    assert "AIPERF_SERVER_METRICS_URLS" not in dict(_step(tmp_path, {"type": "gpqa"}).env)
    tr = _step(
        tmp_path,
        {
            "type": "trace-replay",
            "trace_file": "/traces/t.jsonl",
            "concurrencies": "2x4",
            "aiperf_package": "aiperf==0.7",
        },
    )
    assert tr.command[2] == TRACE_REPLAY_SH
    assert list(tr.command[5:13]) == [
        "Qwen3-32B",
        "/traces/t.jsonl",
        "2,4",
        "2000",
        "25",
        "/model",
        "<logs>",
        "aiperf==0.7",
    ]


def test_sglang_bench_and_router_bench(tmp_path: Path) -> None:
    sb = _step(tmp_path, {"type": "sglang-bench", "isl": 100, "osl": 10, "concurrencies": [1, 2], "req_rate": 4})
    assert sb.command[2] == PER_CONCURRENCY_SH and sb.command[4] == "1x2"
    args = _tail(sb.command, "sglang.bench_serving")
    assert [
        flag_value(args, f)
        for f in (
            "--random-input-len",
            "--random-output-len",
            "--request-rate",
            "--num-prompts",
            "--random-range-ratio",
        )
    ] == [
        "100",
        "10",
        "4",
        "128",
        "1",
    ]
    rb = _step(tmp_path, {"type": "router", "prefix_ratios": [0.2, 0.4], "num_requests": 50, "concurrency": 5})
    assert rb.command[2] == ROUTER_SH and list(rb.command[4:]) == ["14000", "200", "50", "5", "0.2 0.4", "<logs>"]


SAMPLES: dict[str, Any] = {
    "isl": 77,
    "osl": 33,
    "concurrencies": [3, 9],
    "req_rate": 7,
    "random_range_ratio": 0.3,
    "num_prompts_mult": 4,
    "num_warmup_mult": 5,
    "custom_tokenizer": "m.T",
    "use_chat_template": False,
    "dataset_name": "custom",
    "dataset_path": "/d.jsonl",
    "reuse_http_connections": True,
    "slow_down_sleep_time": 0.25,
    "slow_down_wait_time": 9,
    "num_examples": 11,
    "max_tokens": 99,
    "num_threads": 3,
    "num_shots": 2,
    "temperature": 0.1,
    "top_p": 0.9,
    "top_k": 5,
    "repeat": 2,
    "max_context_length": 999,
    "categories": ["a"],
    "mooncake_workload": "synthetic",
    "trace_file": "/t.jsonl",
    "ttft_threshold_ms": 123,
    "itl_threshold_ms": 7,
    "aiperf_package": "aiperf==1",
    "aiperf_args": {"x": 1},
    "num_requests": 12,
    "concurrency": 6,
    "prefix_ratios": "0.5",
    "command": "true",
}
BASE: dict[str, dict[str, Any]] = {
    "sa-bench": {"isl": 64, "osl": 64, "concurrencies": [1], "slow_down_sleep_time": 1, "slow_down_wait_time": 2},
    "trace-replay": {"trace_file": "/t0.jsonl", "concurrencies": [1]},
    "sglang-bench": {"isl": 64, "osl": 64, "concurrencies": [1]},
    "custom": {"command": "false"},
}


def test_every_benchmark_key_is_read_by_some_type() -> None:
    """No key of the recipe model is accepted without a renderer reading it (the rest are refused)."""
    read = set().union(*(t.reads for t in BENCHMARKS.values()))
    assert set(BenchmarkSpec.model_fields) == read
    assert set(SAMPLES) == read - {"type", "env", "container_image"}


@pytest.mark.parametrize(
    ("btype", "key"),
    [(n, k) for n, t in sorted(BENCHMARKS.items()) for k in sorted(t.reads - {"type", "env", "container_image"})],
)
def test_each_key_a_type_reads_changes_its_command(tmp_path: Path, btype: str, key: str) -> None:
    base = dict(BASE.get(btype, {}))
    change = {key: SAMPLES[key]}
    if key in ("dataset_name", "dataset_path"):  # one switch: the random dataset's lengths or a file
        change = {"isl": None, "osl": None, "dataset_name": "custom", "dataset_path": "/d.jsonl"}
    before = _step(tmp_path, {"type": btype, **base}).command
    after_keys = {k: v for k, v in {**base, **change}.items() if v is not None}
    after = _step(tmp_path, {"type": btype, **after_keys}).command
    assert before != after, f"{btype} ignores benchmark.{key}"


# ---- refusals -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bench", "base", "field", "words"),
    [
        ({"type": "gsm8k-bench"}, NV_1P1D, "benchmark.type", "unknown benchmark type `gsm8k-bench`"),
        ({"type": "lm-eval"}, NV_1P1D, "benchmark.type", "INFMAX_WORKSPACE"),
        ({"type": "gpqa", "num_shots": 3}, NV_1P1D, "benchmark.num_shots", "`gpqa` does not use num_shots"),
        ({"type": "gsm8k"}, VLLM, "benchmark.type", "gsm8k_eval.py"),
        ({"type": "sa-bench", "isl": 1, "osl": 1}, NV_1P1D, "benchmark.concurrencies", "sa-bench needs concurrencies"),
        (
            {"type": "sa-bench", "concurrencies": "4xz", "isl": 1, "osl": 1},
            NV_1P1D,
            "benchmark.concurrencies",
            "positive integers",
        ),
        ({"type": "sa-bench", "concurrencies": [1]}, NV_1P1D, "benchmark.isl", "random dataset needs it"),
        (
            {"type": "sa-bench", "concurrencies": [1], "dataset_name": "custom"},
            NV_1P1D,
            "benchmark.dataset_path",
            "JSONL",
        ),
        (
            {"type": "sa-bench", "concurrencies": [1], "isl": 1, "osl": 1, "req_rate": 0},
            NV_1P1D,
            "benchmark.req_rate",
            "positive",
        ),
        (
            {"type": "sa-bench", "concurrencies": [1], "isl": 1, "osl": 1, "slow_down_sleep_time": 1},
            NV_1P1D,
            "benchmark.slow_down_sleep_time",
            "both",
        ),
        (
            {
                "type": "sa-bench",
                "concurrencies": [1],
                "isl": 1,
                "osl": 1,
                "slow_down_sleep_time": 1,
                "slow_down_wait_time": 5,
            },
            NV_AGG,
            "benchmark.slow_down_sleep_time",
            "decode workers",
        ),
        (  # vLLM's decode workers have no /slow_down (Engine.serves_slow_down)
            {
                "type": "sa-bench",
                "concurrencies": [1],
                "isl": 1,
                "osl": 1,
                "slow_down_sleep_time": 1,
                "slow_down_wait_time": 5,
            },
            VLLM,
            "benchmark.slow_down_sleep_time",
            "decode workers",
        ),
        ({"type": "trace-replay", "concurrencies": [1]}, NV_1P1D, "benchmark.trace_file", "trace"),
        (
            {"type": "mooncake-router", "mooncake_workload": "chat"},
            NV_1P1D,
            "benchmark.mooncake_workload",
            "unknown workload",
        ),
        ({"type": "router"}, VLLM, "benchmark.type", "sglang-router"),
        ({"type": "custom"}, NV_1P1D, "benchmark.command", "needs a command"),
        (
            {"type": "gpqa", "container_image": "x.sqsh"},
            RECIPES_DIR / "mocker" / "mocker-1p1d.yaml",
            "benchmark.container_image",
            "pyxis",
        ),
    ],
)
def test_what_cannot_run_is_refused_naming_the_key(
    tmp_path: Path, bench: dict[str, Any], base: Path, field: str, words: str
) -> None:
    profile = "local" if base.parent.name == "mocker" else "nvidia-h100"
    with pytest.raises(SrtError) as err:
        prepare(_recipe(tmp_path, base, bench), profile)
    text = str(err.value)
    assert field in text and words in text, text


def test_srtctls_tokenizer_adapters_are_a_warning_not_a_refusal(tmp_path: Path) -> None:
    name = "sa_bench_tokenizers.sglang_deepseek_v4.SGLangDeepseekV4Tokenizer"
    bench = {"type": "sa-bench", "isl": 8, "osl": 8, "concurrencies": [1], "custom_tokenizer": name}
    plan = prepare(_recipe(tmp_path, NV_1P1D, bench), "nvidia-h100").plan
    (warning,) = [w for w in plan.warnings if w.field == "benchmark.custom_tokenizer"]
    assert "does not ship" in warning.message and "PYTHONPATH" in warning.hint
    assert flag_value(plan.benchmark.command, "--custom-tokenizer") == name  # type: ignore[union-attr]


def test_an_own_image_is_used_under_pyxis(tmp_path: Path) -> None:
    step = _step(tmp_path, {"type": "gpqa", "container_image": "evals.sqsh"})
    assert step.container_image == "evals.sqsh"


# ---- the fixed scripts are valid bash --------------------------------------------------------------


SCRIPTS = {
    "ACCURACY_SH": ACCURACY_SH,
    "PER_CONCURRENCY_SH": PER_CONCURRENCY_SH,
    "MOONCAKE_SH": MOONCAKE_SH,
    "TRACE_REPLAY_SH": TRACE_REPLAY_SH,
    "ROUTER_SH": ROUTER_SH,
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_runner_scripts_pass_bash_n_and_shellcheck(tmp_path: Path, name: str) -> None:
    script = tmp_path / f"{name}.sh"
    script.write_text("#!/bin/bash\n" + SCRIPTS[name] + "\n")
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    need(shutil.which("shellcheck") is not None, "shellcheck not installed")
    proc = subprocess.run(["shellcheck", "-s", "bash", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
