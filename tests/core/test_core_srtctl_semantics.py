"""srtctl's meaning for recipe keys srt-tui used to refuse: recipe-set managed ports, DP sizes, the
recipe's own KV connector JSON, multi-node vLLM data parallelism, and `sweep:` files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.errors import SrtError
from srt_tui.core.plan.paths_preflight import check_paths
from srt_tui.core.render.script import SETUP_WRAP
from srt_tui.core.spec.recipe import list_variants, load_recipe
from tests.conftest import REPO
from tests.core.core_helpers import cli, preflight_recipe, raw_yaml, write_yaml


def _sglang(tmp: Path, prefill: dict[str, Any], decode: dict[str, Any], **roles: Any) -> Path:
    return write_yaml(
        tmp / "r.yaml",
        {
            "name": "r",
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": "sglang",
            "roles": {
                "prefill": {"nodes": 1, "workers": roles.get("prefill_workers", 1), "args": prefill},
                "decode": {"nodes": 1, "workers": 1, "args": decode},
            },
            "frontend": {"type": "sglang-router"},
        },
    )


def test_recipe_bootstrap_port_is_honoured_everywhere_it_is_used(tmp_path: Path) -> None:
    prep = prepare(
        _sglang(tmp_path, {"tp-size": 8, "disaggregation-bootstrap-port": 30001}, {"tp-size": 8}), "nvidia-h100"
    )
    prefill = next(p for p in prep.plan.workers if p.role == "prefill")
    assert prefill.ports["bootstrap"] == 30001
    argv = list(prefill.command)
    assert argv.count("--disaggregation-bootstrap-port") == 1
    assert argv[argv.index("--disaggregation-bootstrap-port") + 1] == "30001"
    router = list(prep.plan.router.process.command) if prep.plan.router else []
    assert router[router.index("--prefill") + 2] == "30001", "the router is told the recipe's port"


def test_recipe_bootstrap_port_shared_by_two_workers_on_a_node_is_refused_naming_both(tmp_path: Path) -> None:
    recipe = _sglang(
        tmp_path, {"tp-size": 4, "disaggregation-bootstrap-port": 30001}, {"tp-size": 8}, prefill_workers=2
    )
    with pytest.raises(SrtError) as exc:
        prepare(recipe, "nvidia-h100")
    text = str(exc.value)
    assert "prefill_0 and prefill_1 would both listen on port 30001 on node 0" in text
    assert "roles.prefill.args.disaggregation-bootstrap-port" in text


def test_dp_attention_shares_tp_gpus_and_unused_gpus_are_a_warning(tmp_path: Path) -> None:
    args = {"tp-size": 8, "dp-size": 8, "enable-dp-attention": True}
    prep = prepare(_sglang(tmp_path, args, {"tp-size": 2}), "nvidia-h100")
    warned = [w for w in prep.plan.warnings if w.field == "roles.decode.args.tp-size"]
    assert warned and "6 of each decode worker's 8 GPUs stay unused" in warned[0].message
    assert not [w for w in prep.plan.warnings if w.field.startswith("roles.prefill.args")]
    with pytest.raises(SrtError, match=r"TP 4 × DP 4 = 16 GPUs"):
        prepare(_sglang(tmp_path, {"tp-size": 4, "dp-size": 4}, {"tp-size": 8}), "nvidia-h100")


def _vllm(tmp: Path, args: dict[str, Any], frontend: str = "dynamo") -> Path:
    return write_yaml(
        tmp / "v.yaml",
        {
            "name": "v",
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": "vllm",
            "roles": {
                "prefill": {"nodes": 2, "workers": 1, "gpus": 16, "args": args},
                "decode": {"nodes": 1, "workers": 1, "args": {"tensor-parallel-size": 8}},
            },
            "frontend": {"type": frontend},
        },
    )


def test_vllm_dp_endpoint_over_two_nodes_runs_one_process_per_node_with_its_ranks(tmp_path: Path) -> None:
    args = {"tensor-parallel-size": 1, "data-parallel-size": 16, "data-parallel-rpc-port": 13345}
    prep = prepare(_vllm(tmp_path, args), "nvidia-h100")
    ranks = [p for p in prep.plan.workers if p.role == "prefill"]
    assert [p.node_index for p in ranks] == [0, 1]
    for rank, p in enumerate(ranks):
        argv = list(p.command)
        assert argv[argv.index("--data-parallel-size-local") + 1] == "8"
        assert argv[argv.index("--data-parallel-start-rank") + 1] == str(8 * rank)
        assert argv[argv.index("--data-parallel-address") + 1] == "<ip:node0>"
        assert argv.count("--data-parallel-rpc-port") == 1 and "--master-addr" not in argv


def test_vllm_recipe_kv_transfer_config_wins_over_the_managed_connector(tmp_path: Path) -> None:
    kv = '{"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}'
    args = {"tensor-parallel-size": 1, "data-parallel-size": 16, "kv-transfer-config": kv}
    prep = prepare(_vllm(tmp_path, args), "nvidia-h100")
    argv = list(next(p for p in prep.plan.workers if p.role == "prefill").command)
    assert argv.count("--kv-transfer-config") == 1 and argv[argv.index("--kv-transfer-config") + 1] == kv


def test_sweep_file_lists_its_jobs_and_each_member_loads_filled_in(tmp_path: Path) -> None:
    path = write_yaml(
        tmp_path / "s.yaml",
        {
            "name": "sw",
            "sweep": {"chunk": [1024, 2048], "mem": [0.8, 0.9]},
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": "sglang",
            "roles": {
                "agg": {
                    "nodes": 1,
                    "workers": 1,
                    "args": {"tp-size": 8, "chunked-prefill-size": "{chunk}", "mem-fraction-static": "{mem}"},
                }
            },  # fmt: skip
        },
    )
    assert list_variants(path) == ["sweep[0]", "sweep[1]", "sweep[2]", "sweep[3]"]
    recipe, _ = load_recipe(f"{path}:sweep[3]")
    assert recipe.name == "sw_chunk2048_mem0.9"
    assert recipe.roles["agg"].args["chunked-prefill-size"] == "2048"
    with pytest.raises(SrtError, match="this sweep holds 4 jobs"):
        load_recipe(path)


def test_aliases_the_profile_lacks_are_used_as_written_with_a_warning_each(tmp_path: Path) -> None:
    """srtctl uses an unknown alias literally; srt-tui renders too, and says so per alias."""
    recipe = write_yaml(
        tmp_path / "a.yaml",
        {
            "name": "a",
            "model": {"path": "dsr1-fp8", "container": "dynamo-sglang"},
            "engine": "sglang",
            "roles": {"agg": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}}},
            "frontend": {"type": "sglang-router"},
        },
    )
    run = cli("dry-run", "-f", str(recipe), "-p", "nvidia-h100", "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    text = run.stdout + run.stderr
    assert "model.path: `dsr1-fp8` is not a model_paths alias of this profile; it is used as written" in text
    assert "model.container: `dynamo-sglang` is not a containers alias" in text
    assert "--container-image=dynamo-sglang" in (tmp_path / "out" / "sbatch.sh").read_text()


def test_an_engine_that_loads_no_model_needs_no_model_paths_alias(tmp_path: Path) -> None:
    """Operator pass (issue 21): a profile Setup wrote has no `model_paths`, so every mocker recipe warned that
    `mock-model` is not an alias, though the mocker loads no model (`Engine.reads_model_path`); an engine that
    reads the path still hears of it."""
    profile = write_yaml(tmp_path / "setup-written.yaml", {"gpus_per_node": 8, "container_runtime": "none"})
    mocker = prepare(str(REPO / "recipes/mocker/mocker-1p1d.yaml"), str(profile))
    assert not [w for w in mocker.plan.warnings if w.field == "model.path"], mocker.plan.warnings
    recipe = write_yaml(
        tmp_path / "s.yaml",
        {
            "name": "s",
            "model": {"path": "mock-model"},
            "engine": "sglang",
            "roles": {"agg": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}}},
            "frontend": {"type": "sglang-router"},
        },
    )
    said = [w.message for w in prepare(str(recipe), str(profile)).plan.warnings if w.field == "model.path"]
    assert said == ["`mock-model` is not a model_paths alias of this profile; it is used as written"], said
    # behind Dynamo the mocker is Dynamo's `dynamo.mocker`, which reads its tokenizer from `--model-path`
    dynamo = write_yaml(
        tmp_path / "d.yaml", {**raw_yaml(REPO / "recipes/mocker/mocker-1p1d.yaml"), "frontend": {"type": "dynamo"}}
    )
    prep = prepare(str(dynamo), str(profile))
    assert [w.field for w in prep.plan.warnings].count("model.path") == 1
    assert [c.code for c in check_paths(prep.job)] == ["model-not-available"]
    assert [c.code for c in check_paths(mocker.job)] == ["model-unused"]


def test_a_model_path_from_an_environment_variable_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODELS", "/lustre/models")
    recipe = write_yaml(
        tmp_path / "e.yaml",
        {
            "name": "e",
            "model": {"path": "$MODELS/qwen", "container": "/c/img.sqsh"},
            "engine": "sglang",
            "roles": {"agg": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}}},
            "frontend": {"type": "sglang-router"},
        },
    )
    prep = prepare(recipe, "nvidia-h100")
    assert prep.plan.model_path == "/lustre/models/qwen" and not prep.plan.warnings


def test_preflight_checks_model_and_container_paths_from_the_login_node(tmp_path: Path) -> None:
    model = tmp_path / "models" / "qwen"
    model.mkdir(parents=True)
    recipe = preflight_recipe(tmp_path, model)
    run = cli("preflight", "-f", str(recipe), "-p", "nvidia-h100", cwd=tmp_path)
    assert run.returncode == 1 and "✗ pf" in run.stdout
    assert "model.container [container-not-available]" in run.stdout and "model.path" not in run.stdout
    doctor = cli(
        "doctor", "-p", "nvidia-h100", "-f", str(recipe), "--json", cwd=tmp_path, env={"SLURM_CONF": "/nonexistent"}
    )
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert doctor.returncode == 1 and checks["preflight model.path"]["ok"]
    assert "[container-not-available]" in checks["preflight model.container"]["error"]
    (tmp_path / "img.sqsh").write_bytes(b"squashfs")
    run = cli("preflight", "-f", str(recipe), "-p", "nvidia-h100", "-v", cwd=tmp_path)
    assert run.returncode == 0 and "✓ pf" in run.stdout and "[model-available]" in run.stdout


def test_setup_script_runs_from_srtctl_configs_before_the_worker(tmp_path: Path) -> None:
    root = tmp_path / "srtctl"
    (root / "configs" / "patches").mkdir(parents=True)
    (root / "configs" / "patches" / "deps.sh").write_text(f"echo ran > {tmp_path}/marker\n")
    data = {
        "name": "ss",
        "setup_script": "deps.sh",
        "model": {"path": "mock-model"},
        "engine": "mocker",
        "roles": {"agg": {"nodes": 1, "workers": 1}},
        "frontend": {"type": "none"},
    }
    recipe = write_yaml(tmp_path / "ss.yaml", data)
    with pytest.raises(SrtError, match="setup_script: `deps.sh` lives in srtctl's configs/"):
        prepare(recipe, "local")
    profile = write_yaml(tmp_path / "p.yaml", {"container_runtime": "none", "srtctl_root": str(root)})
    worker = prepare(recipe, str(profile)).plan.workers[0]
    assert worker.setup_script == (f"{root}/configs/deps.sh", f"{root}/configs/patches/deps.sh")
    run = subprocess.run(
        ["bash", "-c", SETUP_WRAP, "srt-setup", *worker.setup_script, "cat", str(tmp_path / "marker")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0 and run.stdout == "ran\n", run.stderr
    missing = subprocess.run(["bash", "-c", SETUP_WRAP, "s", "/nope/a.sh", "/nope/b.sh", "true"], capture_output=True)
    assert missing.returncode == 1 and b"setup script /nope/a.sh not found" in missing.stderr


def test_kv_events_config_publishes_on_each_process_port(tmp_path: Path) -> None:
    data = {
        "name": "kv",
        "model": {"path": "/models/m", "container": "/c/img.sqsh"},
        "engine": {"type": "sglang", "kv_events_config": {"prefill": True}},
        "roles": {
            "prefill": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}},
            "decode": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}},
        },
        "frontend": {"type": "dynamo"},
    }
    plan = prepare(write_yaml(tmp_path / "kv.yaml", data), "nvidia-h100").plan
    by_role = {p.role: list(p.command) for p in plan.workers}
    prefill = next(p for p in plan.workers if p.role == "prefill")
    events = by_role["prefill"][by_role["prefill"].index("--kv-events-config") + 1]
    # srtctl's text exactly: its key order and json.dumps spacing
    assert events == f'{{"publisher": "zmq", "topic": "kv-events", "endpoint": "tcp://*:{prefill.ports["kv_events"]}"}}'
    assert "--kv-events-config" not in by_role["decode"]


def _profiled(tmp: Path, profiling: dict[str, Any], engine: str = "sglang") -> Path:
    return write_yaml(
        tmp / "prof.yaml",
        {
            "name": "prof",
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": engine,
            "roles": {
                "prefill": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}},
                "decode": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}},
            },
            "frontend": {"type": "sglang-router" if engine == "sglang" else "dynamo"},
            "profiling": profiling,
        },
    )


def test_profiling_wraps_workers_and_opens_each_leaders_window_before_the_benchmark(tmp_path: Path) -> None:
    window = {"prefill": {"start_step": 10, "stop_step": 30}, "decode": {"start_step": 100, "stop_step": 120}}
    prep = prepare(_profiled(tmp_path, {"type": "nsys", **window}), "nvidia-h100")
    decode = next(p for p in prep.plan.workers if p.role == "decode")
    assert decode.command[:2] == ("nsys", "profile") and "<logs>/profiles/decode/decode_0" in decode.command
    assert dict(decode.env)["PROFILE_DECODE_START_STEP"] == "100"
    trigger = prep.plan.profile_trigger
    assert trigger is not None
    targets = json.loads(trigger.command[-1])
    assert [(t["url"], t["start_step"], t["num_steps"]) for t in targets] == [
        ("http://<ip:node0>:6100/start_profile", 10, 20),
        ("http://<ip:node1>:6100/start_profile", 100, 20),
    ]
    assert "srt_step profile_trigger benchmark 0" in prep.script
    torch = prepare(_profiled(tmp_path, {"type": "torch", **window}), "nvidia-h100")
    prefill = next(p for p in torch.plan.workers if p.role == "prefill")
    assert prefill.command[0] != "nsys" and dict(prefill.env)["SGLANG_TORCH_PROFILER_DIR"] == "<logs>/profiles/prefill"


@pytest.mark.parametrize(
    ("profiling", "engine", "message"),
    [
        ({"type": "torch", "prefill": {"start_step": 0, "stop_step": 5}}, "sglang", "profiling.decode"),
        (
            {
                "type": "torch",
                "prefill": {"start_step": 0, "stop_step": 5},
                "decode": {"start_step": 0, "stop_step": 5},
            },
            "trtllm",
            "profiling.type: this engine has no torch profiler hook",
        ),  # fmt: skip
        ({"type": "nsys-time", "delay_secs": 30}, "sglang", "profiling.duration_secs"),
        (
            {"type": "nsys", "prefill": {"start_step": 9, "stop_step": 3}, "decode": {"start_step": 0, "stop_step": 5}},
            "sglang",
            "profiling.prefill.stop_step: must be after start_step",
        ),  # fmt: skip
    ],
)
def test_profiling_follows_srtctls_rules(tmp_path: Path, profiling: dict[str, Any], engine: str, message: str) -> None:
    with pytest.raises(SrtError, match=re.escape(message)):
        prepare(_profiled(tmp_path, profiling, engine), "nvidia-h100")


def test_node_and_job_placeholders_in_env_and_mounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRATCH", "/scratch")
    data = {
        "name": "ph",
        "model": {"path": "/models/m", "container": "/c/img.sqsh"},
        "engine": "sglang",
        "environment": {"NCCL_DEBUG_FILE": "/logs/nccl-{node}-{node_id}.log"},
        "container_mounts": {"$SCRATCH/{job_id}": "/scratch", "{log_dir}/extra": "/extra"},
        "roles": {
            "prefill": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}},
            "decode": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}},
        },
        "frontend": {"type": "sglang-router"},
    }
    prep = prepare(write_yaml(tmp_path / "ph.yaml", data), "nvidia-h100")
    decode = next(p for p in prep.plan.workers if p.role == "decode")
    assert dict(decode.env)["NCCL_DEBUG_FILE"] == "/logs/nccl-<host:node1>-1.log"
    mounts = {m.container: m.host for m in prep.plan.mounts}
    assert mounts["/scratch"] == "/scratch/<job_id>" and mounts["/extra"] == "<job_dir>/logs/extra"
    assert "/scratch/${SRT_JOB_ID}:/scratch" in prep.script and "nccl-${SRT_NODES[1]}-1.log" in prep.script


def test_profile_keys_srt_tui_cannot_act_on_are_said_not_dropped(tmp_path: Path) -> None:
    profile = write_yaml(
        tmp_path / "p.yaml",
        {"container_runtime": "none", "reporting": {"status": {"endpoint": "http://x"}}, "use_het_jobs": True},
    )
    data = {
        "name": "w",
        "model": {"path": "mock-model"},
        "engine": "mocker",
        "roles": {"agg": {"nodes": 1, "workers": 1}},
        "frontend": {"type": "none"},
    }
    warnings = {w.field: w for w in prepare(write_yaml(tmp_path / "w.yaml", data), str(profile)).plan.warnings}
    assert "status-API" in warnings["profile.reporting"].hint and "profile.use_het_jobs" in warnings
    schema1 = {"name": "h", "model": {"path": "/m"}, "resources": {"het_jobs": True, "agg_nodes": 1, "agg_workers": 1}}
    with pytest.raises(SrtError, match=r"het_jobs\) are not supported"):
        load_recipe(write_yaml(tmp_path / "h.yaml", schema1))


def test_dynamo_wheel_installs_srtctls_staged_wheels_from_its_wheelhouse(tmp_path: Path) -> None:
    data = {
        "name": "wh",
        "model": {"path": "/models/m", "container": "/c/img.sqsh"},
        "engine": "sglang",
        "dynamo": {"install": True, "wheel": "1.2.0.dev20260426"},
        "roles": {"agg": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}}},
        "frontend": {"type": "dynamo", "enable_multiple_frontends": False},
    }
    recipe = write_yaml(tmp_path / "wh.yaml", data)
    with pytest.raises(SrtError, match="dynamo.wheel: staged wheels live in srtctl's wheelhouse/dynamo"):
        prepare(recipe, "nvidia-h100")
    root = tmp_path / "srt-slurm"
    profile = write_yaml(tmp_path / "p.yaml", {"gpus_per_node": 8, "srtctl_root": str(root)})
    # not staged yet: srtctl mounts the wheelhouse only where it exists, and the install would find nothing
    prep = prepare(recipe, str(profile))
    assert "/srtctl-wheels" not in {m.container for m in prep.plan.mounts}
    assert "does not exist" in {w.field: w for w in prep.plan.warnings}["dynamo.wheel"].message
    (root / "wheelhouse" / "dynamo").mkdir(parents=True)
    prep = prepare(recipe, str(profile))
    wheels = str(root / "wheelhouse" / "dynamo")
    assert {m.container: m.host for m in prep.plan.mounts}["/srtctl-wheels"] == wheels
    assert "dynamo.wheel" not in {w.field for w in prep.plan.warnings}
    assert "--no-index --find-links /srtctl-wheels ai-dynamo-runtime==1.2.0.dev20260426" in prep.script
    # srtctl's global environment carries the wheel's name and version, on the workers and the frontend
    for p in (*prep.plan.workers, *(r.process for r in prep.plan.routers())):
        env = dict(p.env)
        assert env["DYNAMO_VERSION"] == "1.2.0.dev20260426", p.name
        assert env["DYNAMO_WHEEL_NAME"] == "ai_dynamo-1.2.0.dev20260426-py3-none-any.whl", p.name


def test_observability_analytics_are_refused_with_the_reason(tmp_path: Path) -> None:
    data = {
        "name": "ob",
        "model": {"path": "/models/m", "container": "/c/img.sqsh"},
        "engine": "sglang",
        "observability": {"enabled": False, "tachometer": {"enabled": True}},
        "roles": {"agg": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}}},
        "frontend": {"type": "sglang-router"},
    }
    with pytest.raises(SrtError, match=r"observability.tachometer: srtctl's analytics capture"):
        prepare(write_yaml(tmp_path / "ob.yaml", data), "nvidia-h100")
    data["observability"] = {"enabled": False}
    assert prepare(write_yaml(tmp_path / "ob.yaml", data), "nvidia-h100").plan.workers


def test_a_discovered_connector_needs_a_router_that_discovers_it(tmp_path: Path) -> None:
    data = {
        "name": "mo",
        "model": {"path": "/models/m", "container": "/c/img.sqsh"},
        "engine": {"type": "vllm", "connector": "moriio"},
        "roles": {
            "prefill": {"nodes": 1, "workers": 1, "args": {"tensor-parallel-size": 8}},
            "decode": {"nodes": 1, "workers": 1, "args": {"tensor-parallel-size": 8}},
        },
        "frontend": {"type": "dynamo", "enable_multiple_frontends": False},
    }
    with pytest.raises(SrtError, match="engine.connector: the moriio connector's .* set frontend.type: vllm-router"):
        prepare(write_yaml(tmp_path / "mo.yaml", data), "amd-mi300x")


def test_the_profiling_trigger_posts_each_window_and_survives_a_refusal(tmp_path: Path) -> None:
    """The trigger script itself, against a real HTTP server: each leader gets its window; a dead one is said."""
    import http.server
    import threading

    from srt_tui.core.template_files import template

    seen: list[tuple[str, dict[str, Any]]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            seen.append((self.path, json.loads(self.rfile.read(int(self.headers["Content-Length"])))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    window = {"output_dir": "/logs/profiles/decode", "start_step": 100, "num_steps": 20, "activities": ["GPU"]}
    targets = [{"url": f"{base}/start_profile", **window}, {"url": "http://127.0.0.1:9/start_profile", **window}]
    try:
        run = subprocess.run(
            [sys.executable, "-c", template("profile_trigger.py"), json.dumps(targets)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        server.shutdown()
    assert run.returncode == 0, run.stderr
    assert seen == [("/start_profile", window)]
    assert "profiling started" in run.stdout and "profiling NOT started: http://127.0.0.1:9" in run.stdout
