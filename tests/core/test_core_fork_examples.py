"""The AMD fork's own examples (tests/core/fork_examples, copies of SemiAnalysisAI/srt-slurm examples/) load
on the AMD profiles with the fork's meaning: direct jobs run no router and their worker owns the public
port, `sglang` with prefill/decode is the SGLang router in PD mode, the recipe's `dcgm_exporter` wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.errors import SrtError
from srt_tui.core.text.dryrun import describe

from .core_helpers import flag_value, raw_yaml

EXAMPLES = Path(__file__).resolve().parent / "fork_examples"
AMD = ("amd-mi300x", "amd-mi355x")
DIRECT = ("sglang-direct-agg", "atom-direct", "amd-power-telemetry")


def _examples() -> list[Path]:
    return sorted(EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("profile", AMD)
@pytest.mark.parametrize("example", _examples(), ids=lambda p: p.stem)
def test_every_fork_example_renders_on_the_amd_profiles(example: Path, profile: str) -> None:
    prep = prepare(example, profile)
    plan = prep.plan
    data = raw_yaml(example)
    assert plan.name == data["name"]
    assert "set -euo pipefail" in prep.script
    for w in plan.workers:  # GPU subsets: the profile's ROCR mask, or vLLM's --device-ids without one
        ids = flag_value(list(w.command), "--device-ids")
        assert (w.visible_devices, ids) in ((",".join(map(str, w.gpus)), None), (None, ",".join(map(str, w.gpus))))
        assert dict(w.env).get("ROCR_VISIBLE_DEVICES") == w.visible_devices


@pytest.mark.parametrize("stem", DIRECT)
def test_direct_jobs_start_no_router_and_the_worker_owns_the_public_port(stem: str) -> None:
    plan = prepare(EXAMPLES / f"{stem}.yaml", "amd-mi300x").plan
    assert plan.router is None and not [p for p in plan.processes() if p.kind == "router"]
    (worker,) = plan.workers
    assert worker.port == 8000 and plan.public_url == worker.url
    argv = list(worker.command)
    port_flag = "--server-port" if "atom.entrypoints.openai_server" in argv else "--port"
    assert flag_value(argv, port_flag) == "8000"
    assert plan.benchmark is not None and "8000" in " ".join(plan.benchmark.command)


def test_sglang_with_prefill_decode_is_the_sglang_router_in_pd_mode() -> None:
    plan = prepare(EXAMPLES / "sglang-router-disagg.yaml", "amd-mi355x").plan
    assert plan.router is not None and plan.router.type == "sglang-router"
    argv = list(plan.router.process.command)
    assert argv[:3] == ["python", "-m", "sglang_router.launch_router"] and "--pd-disaggregation" in argv  # srtctl's
    prefill = next(w for w in plan.workers if w.role == "prefill")
    assert argv[argv.index("--prefill") + 1 : argv.index("--prefill") + 3] == [
        prefill.url,
        str(prefill.ports["bootstrap"]),
    ]
    assert all(w.port != plan.router.process.port for w in plan.workers)


def test_sglang_with_several_aggregated_workers_is_the_router_over_their_urls() -> None:
    plan = prepare(EXAMPLES / "sglang-router-agg.yaml", "amd-mi300x").plan
    assert plan.router is not None and plan.router.type == "sglang-router"
    argv = list(plan.router.process.command)
    urls = argv[argv.index("--worker-urls") + 1 : argv.index("--worker-urls") + 3]
    assert urls == [w.url for w in plan.workers] and flag_value(argv, "--policy") == "cache_aware"


def test_moriio_puts_vllm_router_in_discovery_mode() -> None:
    plan = prepare(EXAMPLES / "vllm-router-moriio-disagg.yaml", "amd-mi300x").plan
    assert plan.router is not None and plan.router.registration == "router-health"
    assert flag_value(list(plan.router.process.command), "--kv-connector") == "moriio"
    assert all('"MoRIIOConnector"' in " ".join(w.command) for w in plan.workers)


@pytest.mark.parametrize("profile", ["amd-mi300x", "nvidia-h100"])
def test_the_recipes_dcgm_exporter_wins_over_the_profile_default(tmp_path: Path, profile: str) -> None:
    literal = "container: docker://lmsysorg/sglang:v0.5.8-rocm700-mi30x"  # an NVIDIA profile has no ROCm alias
    prep = prepare(_variant(tmp_path, "amd-power-telemetry", "container: sglang-rocm", literal), profile)
    exporter = prep.plan.gpu_exporter
    assert exporter is not None and exporter.source == "recipe" and exporter.launched is True
    assert (exporter.image, exporter.port) == ("docker://rocm/device-metrics-exporter:v1.5.2", 5000)
    assert exporter.gpu_label == "gpu_id" and exporter.metrics["power"] == "gpu_power_usage"
    assert prep.plan.to_json()["gpu_exporter"]["source"] == "recipe"
    assert "device-metrics-exporter:v1.5.2 port 5000 (from recipe)" in describe(prep, with_script=False)


def _variant(tmp_path: Path, stem: str, old: str, new: str) -> Path:
    text = (EXAMPLES / f"{stem}.yaml").read_text(encoding="utf-8")
    assert old in text
    out = tmp_path / f"{stem}.yaml"
    out.write_text(text.replace(old, new, 1), encoding="utf-8")
    return out


def _problems(path: Path, profile: str = "amd-mi300x") -> list[str]:
    with pytest.raises(SrtError) as info:
        prepare(path, profile)
    return [f"{p.field}: {p.message} ({p.hint})" for p in info.value.problems]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("type: sglang\n", "type: llm-d\n", "frontend `llm-d` (the llm-d inference scheduler) is not supported"),
        ("    workers: 1\n", "    workers: 1\n    critical: false\n", "srt-tui fails the job when any worker exits"),
        ("  enabled: true\n", "  enabled: true\n  cpu_power: {enabled: true}\n", "(CPU power) is not supported"),
        ("  required: false\n", "  required: true\n", "never fails a job on it"),
        ("workers: 1\n", "workers: 2\n", "use frontend.type: sglang"),
        ("engine: sglang\n", "engine: tilert\n", "engine `tilert` (TileRT) is not supported by srt-tui yet"),
        ("schema: 2\n", "schema: 2\nservices: [{name: lmc, type: lmcache-server}]\n", "(srtctl's long-running"),
    ],
)
def test_fork_features_srt_tui_does_not_run_are_refused_with_the_reason(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    path = _variant(tmp_path, "amd-power-telemetry", old, new)
    if new == "workers: 2\n":  # two workers under `sglang` are fine: it becomes the router
        assert prepare(path, "amd-mi300x").plan.router is not None
        path = _variant(tmp_path, "atom-direct", old, new)
        expected = "use frontend.type: atomesh"
    assert any(expected in p for p in _problems(path)), _problems(path)


def test_the_forks_smg_frontend_runs_the_shepherd_model_gateway(tmp_path: Path) -> None:
    path = _variant(tmp_path, "sglang-router-disagg", "type: sglang\n", "type: smg\n")
    plan = prepare(path, "amd-mi355x").plan
    assert plan.router is not None and plan.router.type == "smg"
    assert list(plan.router.process.command)[:3] == ["smg", "launch", "--pd-disaggregation"]


def test_fork_keys_that_match_srt_tuis_behaviour_are_honoured(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        "sglang-direct-agg",
        "    workers: 1\n",
        "    workers: 1\n    critical: true\n",
    )
    assert prepare(path, "amd-mi300x").plan.router is None


def test_schema_1_sglang_is_the_router_even_for_one_worker(tmp_path: Path) -> None:
    path = tmp_path / "v1.yaml"
    path.write_text(
        "name: v1-agg\n"
        "model: {path: qwen3-0.6b, container: sglang, precision: bf16}\n"
        "resources: {gpu_type: mi300x, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1}\n"
        "frontend: {type: sglang, enable_multiple_frontends: false}\n"
        "backend: {type: sglang, sglang_config: {aggregated: {tp-size: 8}}}\n",
        encoding="utf-8",
    )
    plan = prepare(path, "amd-mi300x").plan
    assert plan.router is not None and plan.router.type == "sglang-router"


def test_a_roles_connector_overrides_the_engines_for_that_role_only(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        "vllm-router-disagg",
        "      max-model-len: 4096\n  decode:",
        "      max-model-len: 4096\n      connector: lmcache\n  decode:",
    )
    plan = prepare(path, "amd-mi300x").plan
    kv = {w.role: flag_value(list(w.command), "--kv-transfer-config") or "" for w in plan.workers}
    assert "LMCacheConnectorV1" in kv["prefill"] and "NixlConnector" in kv["decode"]
    assert all("--connector" not in w.command for w in plan.workers)


def test_a_refused_fork_key_is_located_at_its_own_line(tmp_path: Path) -> None:
    path = _variant(tmp_path, "sglang-direct-agg", "    workers: 1\n", "    workers: 1\n    critical: false\n")
    with pytest.raises(SrtError) as info:
        prepare(path, "amd-mi300x")
    (problem,) = info.value.problems
    line = path.read_text().splitlines().index("    critical: false") + 1
    assert (problem.field, problem.line) == ("roles.agg.critical", line)
    assert problem.message.startswith("`critical` false is not supported")
