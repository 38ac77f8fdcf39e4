"""Hostile values come out of the launch script inert, and secrets never reach the rendered files.

The quoting check runs the rendered script itself through bash, with the runtime functions replaced by
a harness: `srt_step` records its arguments NUL-separated, nodes get fixed addresses. Every argument must
round-trip exactly (placeholders resolved the way the job resolves them) and no marker file may appear.
Then each recorded step is executed for real with the engines, routers and services replaced by stub
programs, so the second level of shell (the step wrapper, `bash -c` benchmarks) is checked the same way.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from srt_tui.core.api import Prepared, prepare
from srt_tui.core.errors import ConfigError
from srt_tui.core.jobdir.write import job_files, job_secrets, write_atomic_dir
from srt_tui.core.plan.model import ProcessPlan
from srt_tui.core.spec.secrets import secret_ref
from tests.core.core_helpers import PROFILES_DIR, RECIPES_DIR, cli, raw_yaml, substitute, write_yaml

NODE_IPS = [f"10.0.0.{i + 1}" for i in range(8)]
NODE_NAMES = [f"node{i}" for i in range(8)]
JOB_ID = "4242"


def payload(markers: Path, tag: str) -> str:
    """A value that runs `touch` under every kind of careless quoting (no `:` so it also fits mount specs)."""
    m = f"{markers}/{tag}"
    return (
        f"a$(touch {m}-subst)b`touch {m}-tick`c\"d'e;touch {m}-semi&&touch {m}-and|tee {m}-pipe>{m}-redir"
        f"\n touch {m}-newline\n$HOME ${{PATH}} \\ * ? ~ # !x ${{x-y}} %s"
    )


#: the oddest interface name the profile check lets through (an alias with `:`, `@`, `+`, `.`, `-`)
IFACE = "en-p0.1@x:+"


def path_payload(markers: Path, tag: str) -> str:
    """`payload` as a path or option value may still hold one: no space, line break or quote (those are
    refused on load, tests/core/test_hostile_values.py, as is `$PATH`'s `:` in a mount), `${IFS}` splitting
    the words instead."""
    text = payload(markers, tag).replace("\n", " ").replace('"', "").replace("'", "").replace(" ${PATH}", "")
    return text.replace(" ", "${IFS}")


_STUBS = r"""
# ---- test harness: the runtime functions, replaced -----------------------------------------------
srt_event() { :; }
srt_log() { :; }
srt_fail() { echo "srt_fail: $1" >&2; exit 1; }
srt_resolve_nodes() {
  local i
  SRT_NODES=()
  SRT_NODE_IPS=()
  for ((i = 0; i < SRT_N_NODES; i++)); do SRT_NODES+=("node$i"); SRT_NODE_IPS+=("10.0.0.$((i + 1))"); done
}
SRT_PIDS=()
SRT_PID_LOGS=()
SRT_STEP_COUNT=0
srt_step() {
  printf '%s\0' "$@" >"$HARNESS_OUT/step.$SRT_STEP_COUNT"
  SRT_STEP_COUNT=$((SRT_STEP_COUNT + 1))
  SRT_PIDS+=(0)
  SRT_PID_LOGS+=("$4")
}
srt_wait_workers() { :; }
srt_wait_infra() { :; }
srt_wait_router() { :; }
srt_serve() { :; }
"""

_DUMP = r"""
# ---- test harness: what the steps would get -------------------------------------------------------
if ((${#SRT_CONTAINER_ARGS[@]})); then printf '%s\0' "${SRT_CONTAINER_ARGS[@]}" >"$HARNESS_OUT/container_args"; fi
if ((${#SRT_SRUN_OPTS[@]})); then printf '%s\0' "${SRT_SRUN_OPTS[@]}" >"$HARNESS_OUT/srun_opts"; fi
printf '%s' "$SRT_INTERFACE" >"$HARNESS_OUT/interface"
"""

_STUB_PROGRAM = r"""#!/bin/bash
# stands in for an engine, router or service: records argv and environment, NUL-separated
[[ $0 == */python3 && ${1:-} == -c ]] && exit 0   # the step wrapper's fingerprint probe
f=$(mktemp "$STUB_OUT/call.XXXXXX")
printf '%s\0' "$(basename "$0")" "$@" >"$f"
env -0 >"$f.env"
"""
STUB_NAMES = (
    "python",
    "python3",
    "vllm",
    "vllm-router",
    "atomesh",
    "nats-server",
    "etcd",
    "trtllm-llmapi-launch",
    "nginx",
)


def harness(script: str, extra: str = "") -> str:
    """The rendered script with the runtime section swapped for the harness functions."""
    start, body = script.index("# ---- srt-tui runtime"), script.index("# ---- this job")
    return script[:start] + _STUBS + extra + script[body:] + _DUMP


def _nul_split(data: bytes) -> list[str]:
    assert data.endswith(b"\0")
    return [x.decode() for x in data[:-1].split(b"\0")]


class Run:
    """One execution of a harnessed script: its recorded steps and the values it resolved."""

    def __init__(self, tmp: Path, text: str) -> None:
        self.out = tmp / "harness-out"
        self.job_dir = tmp / "job dir"  # a space: the job directory must be quoted everywhere
        self.out.mkdir()
        self.job_dir.mkdir()
        self.node_tmp = tmp / "node tmp"  # the node's temp directory: the job's <scratch> is made in it
        self.node_tmp.mkdir()
        path = tmp / "harness.sh"
        path.write_text(text, encoding="utf-8")
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp),
            "HARNESS_OUT": str(self.out),
            "SRT_JOB_DIR": str(self.job_dir),
            "SLURM_JOB_ID": JOB_ID,
            "TMPDIR": str(self.node_tmp),
        }
        self.proc = subprocess.run(["bash", str(path)], cwd=tmp, env=env, capture_output=True, text=True, timeout=60)
        steps = sorted(self.out.glob("step.*"), key=lambda p: int(p.suffix[1:]))
        self.steps = [_nul_split(p.read_bytes()) for p in steps]

    def scratch(self) -> str:
        """The job's private temp directory (mktemp -d: its name is random), as the steps were given it."""
        found = {
            m
            for step in self.steps
            for a in step
            for m in re.findall(rf"{re.escape(str(self.node_tmp))}/srt-tui-{JOB_ID}\.[A-Za-z0-9]+", a)
        }
        return found.pop() if len(found) == 1 else "<no scratch>"

    def read(self, name: str) -> list[str]:
        path = self.out / name
        return _nul_split(path.read_bytes()) if path.exists() else []


def _values(prep: Prepared, job_dir: Path) -> dict[str, str]:
    pyxis = prep.plan.container_runtime == "pyxis"
    return {
        "bind": "0.0.0.0",
        "logs": "/logs" if pyxis else f"{job_dir}/logs",
        "job_id": JOB_ID,
        "job_dir": str(job_dir),
    }


def _resolved(p: ProcessPlan, values: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    def sub(t: str) -> str:
        return substitute(t, values, NODE_IPS, NODE_NAMES)

    return [sub(a) for a in p.command], {k: sub(v) for k, v in p.env}


def _unwrap(argv: list[str]) -> list[str]:
    """Drop the step wrapper (`bash -c WRAP srt-step FINGERPRINT`) and the ai-dynamo install's
    (`bash -c WRAP srt-install SCRIPT`) when present."""
    if argv[:2] == ["bash", "-c"] and len(argv) > 4 and argv[3] == "srt-step":
        argv = argv[5:]
    if argv[:2] == ["bash", "-c"] and len(argv) > 4 and argv[3] == "srt-install":
        argv = argv[5:]
    return argv


def _stub_dir(tmp: Path) -> Path:
    stubs = tmp / "stubs"
    stubs.mkdir()
    for name in STUB_NAMES:
        (stubs / name).write_text(_STUB_PROGRAM, encoding="utf-8")
        (stubs / name).chmod(0o755)
    return stubs


def _execute(argv: list[str], stubs: Path, calls: Path, tmp: Path) -> list[tuple[list[str], dict[str, str]]]:
    """Run one recorded step for real, with stub programs first on PATH; return the stub invocations."""
    calls.mkdir()
    env = {"PATH": f"{stubs}:/usr/bin:/bin", "STUB_OUT": str(calls), "HOME": str(tmp)}
    exe = str(stubs / argv[0]) if (stubs / argv[0]).exists() else argv[0]
    proc = subprocess.run([exe, *argv[1:]], cwd=tmp, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"step failed: {proc.stderr}"
    out = []
    for f in sorted(calls.glob("call.??????")):
        env_items = [x.split("=", 1) for x in _nul_split((calls / f"{f.name}.env").read_bytes())]
        out.append((_nul_split(f.read_bytes()), {k: v for k, v in env_items}))
    return out


#: the tensor-parallel flag each engine reads from recipe args (ATOM derives `-tp` from the GPUs itself)
TP_FLAG = {"sglang": "tp-size", "mocker": "tp-size", "vllm": "tensor-parallel-size", "trtllm": "tensor-parallel-size"}
COMBOS = [
    ("mocker", "sglang-router"),
    ("mocker", "vllm-router"),
    ("sglang", "sglang-router"),
    ("sglang", "dynamo"),
    ("vllm", "vllm-router"),
    ("atom", "atomesh"),
    ("trtllm", "dynamo"),
]


def hostile_recipe(markers: Path, engine: str, frontend: str, concurrencies: list[int]) -> dict[str, Any]:
    def role(tag: str, gpus: int) -> dict[str, Any]:
        return {
            "nodes": 1,
            "workers": 8 // gpus,
            "gpus": gpus,
            "env": {"SRT_PAYLOAD_ROLE": payload(markers, f"{tag}-env")},
            "args": {
                **({TP_FLAG[engine]: gpus} if engine in TP_FLAG else {}),
                "payload-arg": payload(markers, f"{tag}-arg"),
                "payload-list": [payload(markers, f"{tag}-list"), "plain"],
                "payload-json": {"k": payload(markers, f"{tag}-json")},
                f"x;touch {markers}/{tag}-key": "v",
            },
            "extra_args": [payload(markers, f"{tag}-extra")],
        }

    return {
        "name": f"hostile-{engine}-{frontend}",
        "model": {
            "path": f"/models/{path_payload(markers, 'model')}",
            "container": f"/containers/{path_payload(markers, 'image')}.sqsh",
            "served_name": payload(markers, "served"),
        },
        "engine": {"type": engine, "set_visible_devices": True} if engine == "vllm" else engine,
        "roles": {"prefill": role("prefill", 4), "decode": role("decode", 8)},
        "frontend": {
            "type": frontend,
            "args": {"payload-router": payload(markers, "router-arg")},
            "env": {"SRT_PAYLOAD_FRONT": payload(markers, "router-env")},
        },
        "benchmark": {
            "type": "sa-bench",
            "isl": 8,
            "osl": 8,
            "concurrencies": concurrencies,
            "env": {"SRT_PAYLOAD_BENCH": payload(markers, "bench-env")},
        },
        "environment": {"SRT_PAYLOAD_GLOBAL": payload(markers, "global-env")},
        **({"dynamo": {"version": payload(markers, "dynamo-version")}} if frontend == "dynamo" else {}),
        "srun_options": {"comment": path_payload(markers, "srun")},
        "extra_mount": [f"/data/{path_payload(markers, 'mount')}:/data:ro"],
        "container_mounts": {f"/cm/{path_payload(markers, 'cmount')}": "/cm"},
    }


def hostile_profile(tmp: Path, markers: Path, runtime: str) -> Path:
    data = raw_yaml(PROFILES_DIR / "local.yaml")
    data["container_runtime"] = runtime
    data["network_interface"] = IFACE  # an interface name is checked on load: no shell characters reach here
    if runtime == "pyxis":
        data["default_mounts"] = {f"/pm/{path_payload(markers, 'pmount')}": "/pm"}
    return write_yaml(tmp / f"hostile-{runtime}.yaml", data)


@pytest.mark.parametrize("runtime", ["none", "pyxis"])
@pytest.mark.parametrize(("engine", "frontend"), COMBOS, ids=[f"{e}+{f}" for e, f in COMBOS])
def test_hostile_values_round_trip_inert(tmp_path: Path, engine: str, frontend: str, runtime: str) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    recipe = write_yaml(tmp_path / "hostile.yaml", hostile_recipe(markers, engine, frontend, [1]))
    prep = prepare(recipe, str(hostile_profile(tmp_path, markers, runtime)))
    run = Run(tmp_path, harness(prep.script))
    assert run.proc.returncode == 0, run.proc.stderr
    values = {**_values(prep, run.job_dir), "scratch": run.scratch()}

    processes = prep.plan.processes()
    assert len(run.steps) == len(processes)
    stubs = _stub_dir(tmp_path)
    installs = 0
    for i, (recorded, p) in enumerate(zip(run.steps, processes)):
        name, kind, node, log, sep, *argv = recorded
        assert (name, kind, node, sep) == (p.name, p.kind, str(p.node_index), "--")
        assert log == f"{run.job_dir}/{p.log}"
        # servers listen on their node's address (issue 18); the benchmark and an MPI step spanning nodes on all
        spans = p.kind == "benchmark" or len(set(p.step_nodes)) > 1
        command, env = _resolved(p, {**values, "bind": "0.0.0.0" if spans else NODE_IPS[p.node_index]})
        unset = [arg for k in p.unset_env for arg in ("-u", k)]  # inherited GPU visibility a subset drops
        expected = (["env", *unset, *(f"{k}={v}" for k, v in env.items())] if env or unset else []) + command
        assert _unwrap(argv) == expected, f"{p.name}: argv did not survive the quoting"
        calls = _execute(argv, stubs, tmp_path / f"calls-{i}", tmp_path)
        # the ai-dynamo install, with the recipe's version as one inert word; once per environment (marker)
        for install in [c for c in calls if c[0][:4] == ["python3", "-m", "pip", "install"]]:
            assert p.install is not None and f"ai-dynamo=={payload(markers, 'dynamo-version')}" in install[0]
            installs += 1
            calls.remove(install)
        assert len(calls) == 1, f"{p.name}: expected one program start, got {calls}"
        got_argv, got_env = calls[0]
        if command[:2] == ["bash", "-c"] and p.kind == "nginx":  # srtctl's in-container nginx: one shell line
            command = shlex.split(command[2].rsplit("&& ", 1)[-1])
        assert got_argv == [Path(command[0]).name, *command[1:]], f"{p.name}: argv changed in the step wrapper"
        for k, v in env.items():
            assert got_env.get(k) == v, f"{p.name}: env {k} changed in the step wrapper"
    assert installs == (1 if any(p.install for p in processes) else 0)
    if runtime == "pyxis":
        mounts = ",".join(
            ("<job_dir>/logs" if m.host == "<log_dir>" else m.host) + f":{m.container}" + (":ro" if m.readonly else "")
            for m in prep.plan.mounts
        )
        assert run.read("container_args")[:2] == [
            f"--container-image={prep.plan.container_image}",
            f"--container-mounts={substitute(mounts, values, NODE_IPS, NODE_NAMES)}",
        ]
        # srtctl's rule: a mount's host path has its variables expanded (`$HOME`), nothing else of it runs
        assert any(os.path.expandvars(path_payload(markers, "mount")) in m.host for m in prep.plan.mounts)
    assert run.read("srun_opts") == [f"--comment={path_payload(markers, 'srun')}"]
    assert (run.out / "interface").read_text() == IFACE
    written = run.job_dir / "endpoints.json"
    endpoints = yaml.safe_load(written.read_text())  # JSON is YAML: parsed without srt-tui's code
    assert [w["name"] for w in endpoints["workers"]] == [p.name for p in prep.plan.leaders()]
    for p in processes:
        for file_name, content in p.config_files:
            assert (run.job_dir / "logs" / "config" / file_name).read_text() == content
    assert sorted(markers.iterdir()) == [], "a hostile value executed"


@pytest.mark.parametrize(
    ("engine", "btype", "runs"), [("sglang", "sa-bench", 1), ("sglang", "sglang-bench", 3), ("mocker", "gpqa", 1)]
)
def test_benchmark_scripts_keep_values_inert(tmp_path: Path, engine: str, btype: str, runs: int) -> None:
    """Benchmarks that run a fixed `bash -c` script (a second level of shell parsing) get recipe values as
    positional arguments: the hostile served name reaches every client call unchanged and runs nothing."""
    markers = tmp_path / "markers"
    markers.mkdir()
    data = hostile_recipe(markers, engine, "sglang-router", [1, 2, 3])
    if btype == "gpqa":
        data["benchmark"] = {"type": "gpqa", "env": data["benchmark"]["env"]}
    else:
        data["benchmark"]["type"] = btype
    recipe = write_yaml(tmp_path / "hostile.yaml", data)
    prep = prepare(recipe, str(hostile_profile(tmp_path, markers, "none")))
    run = Run(tmp_path, harness(prep.script))
    assert run.proc.returncode == 0, run.proc.stderr
    assert prep.plan.benchmark is not None
    argv = run.steps[-1][5:]
    calls = _execute(argv, _stub_dir(tmp_path), tmp_path / "calls", tmp_path)
    served = payload(markers, "served")
    assert len(calls) == runs
    for got, _ in calls:
        assert got[0] == "python3" and served in got, "the served model name changed inside the benchmark's shell"
    assert sorted(markers.iterdir()) == [], "a hostile value executed"


def test_harness_detects_an_unquoted_value(tmp_path: Path) -> None:
    """The harness can fail: a step with an unquoted command substitution leaves its marker."""
    markers = tmp_path / "markers"
    markers.mkdir()
    prep = prepare(RECIPES_DIR / "mocker" / "mocker-2p1d.yaml", "local")
    canary = f'srt_step canary worker 0 log -- echo $(touch "{markers}/canary")\n'
    run = Run(tmp_path, harness(prep.script, canary))
    assert run.proc.returncode == 0, run.proc.stderr
    assert (markers / "canary").exists()
    _execute(["bash", "-c", f"touch {markers}/level2"], _stub_dir(tmp_path), tmp_path / "calls", tmp_path)
    assert (markers / "level2").exists()


def test_recipe_name_is_restricted(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    data = hostile_recipe(markers, "mocker", "sglang-router", [1])
    data["name"] = f"x$(touch {markers}/name)"
    with pytest.raises(ConfigError) as info:
        prepare(write_yaml(tmp_path / "r.yaml", data), "local")
    problem = info.value.problems[0]
    assert problem.field == "name" and problem.line == 1 and problem.hint
    assert sorted(markers.iterdir()) == []


SECRETS = {
    "HF_TOKEN": "hf-secret-value-0001",
    "MY_API_KEY": "api-secret-value-0002",
    "ROUTER_TOKEN": "router-secret-value-0003",
    "BENCH_PASSWORD": "bench-secret-value-0004",
    "EXPORTER_TOKEN": "exporter-secret-value-0005",
}


def _secret_inputs(tmp: Path) -> tuple[Path, Path]:
    recipe = {
        "name": "secrets",
        "model": {"path": "mock-model"},
        "engine": "mocker",
        "environment": {"HF_TOKEN": SECRETS["HF_TOKEN"], "PLAIN_VAR": "visible"},
        "roles": {
            "prefill": {"nodes": 1, "workers": 1, "env": {"MY_API_KEY": SECRETS["MY_API_KEY"]}},
            "decode": {"nodes": 1, "workers": 1},
        },
        "frontend": {"type": "sglang-router", "env": {"ROUTER_TOKEN": SECRETS["ROUTER_TOKEN"]}},
        "benchmark": {"type": "custom", "command": "true", "env": {"BENCH_PASSWORD": SECRETS["BENCH_PASSWORD"]}},
    }
    profile = raw_yaml(PROFILES_DIR / "local.yaml")
    profile["default_gpu_exporter"] = {"container_image": "x", "env": {"EXPORTER_TOKEN": SECRETS["EXPORTER_TOKEN"]}}
    profile["secret_env"] = sorted(set(SECRETS) - {"HF_TOKEN"})  # HF_TOKEN is known by name
    return write_yaml(tmp / "secrets.yaml", recipe), write_yaml(tmp / "secret-profile.yaml", profile)


def test_secrets_never_reach_script_plan_text_or_recipe(tmp_path: Path) -> None:
    recipe, profile = _secret_inputs(tmp_path)
    out = tmp_path / "out"
    text = cli("dry-run", "-f", str(recipe), "-p", str(profile), "-o", str(out), cwd=tmp_path)
    as_json = cli("dry-run", "-f", str(recipe), "-p", str(profile), "--json", cwd=tmp_path)
    assert text.returncode == 0 and as_json.returncode == 0, text.stderr + as_json.stderr
    outputs = {"dry-run text": text.stdout, "dry-run --json": as_json.stdout}
    outputs |= {name: (out / name).read_text() for name in ("sbatch.sh", "plan.json", "recipe.yaml", "profile.yaml")}
    for where, content in outputs.items():
        for name, value in SECRETS.items():
            assert value not in content, f"{name}'s value leaked into {where}"
    assert "visible" in outputs["sbatch.sh"], "non-secret environment must still reach the script"
    plan = yaml.safe_load(outputs["plan.json"])
    assert set(plan["secret_env"]) == set(SECRETS) - {"EXPORTER_TOKEN"}
    assert "HF_TOKEN" in text.stdout, "the dry-run names the secrets it withholds"


def test_secrets_file_is_private_and_sources_inert(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    recipe, profile = _secret_inputs(tmp_path)
    data = raw_yaml(recipe)
    data["environment"]["HF_TOKEN"] = payload(markers, "secret")
    prep = prepare(write_yaml(tmp_path / "s2.yaml", data), str(profile))
    target = write_atomic_dir(
        tmp_path / "job", job_files(prep.job, prep.plan, prep.script), secrets=job_secrets(prep.job)
    )
    secrets_file = target / "secrets.env"
    assert stat.S_IMODE(secrets_file.stat().st_mode) == 0o600
    assert payload(markers, "secret") not in (target / "sbatch.sh").read_text()
    proc = subprocess.run(
        [
            "bash",
            "-c",
            f'set -a; source "$1"; set +a; printf "%s" "${secret_ref("global", "HF_TOKEN")}"',
            "x",
            str(secrets_file),
        ],  # fmt: skip
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"]},
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == payload(markers, "secret")
    assert sorted(markers.iterdir()) == []
