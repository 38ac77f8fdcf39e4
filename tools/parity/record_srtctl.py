"""Run srtctl's own orchestrator stages with its process launch recorded instead of executed.

Runs in a throwaway venv where srtctl is installed (never srt-tui's environment; srt-tui never imports
srtctl). srtctl's `start_srun_process` (every srun it starts goes through it), its address resolution and
its readiness waits are replaced in every srtctl module that imported them by name; everything else —
config loading with an srtslurm.yaml, RuntimeContext, topology, backends, frontends — is srtctl's own code.

    python record_srtctl.py SPECS.json OUT.jsonl WORKDIR [VARIANT]

SPECS.json: a JSON list of `file.yaml` or `file.yaml:selector` (override/zip/sweep variant). One JSON line
per job: every process its infra, worker and frontend stages would launch, with srun's arguments.
VARIANT names the cluster config (`srtslurm.yaml`) each job runs on: `minimal` (the default: interface, model
and container aliases) or `cluster` (every key of srtctl's ClusterConfig that can change a launch, see CLUSTER).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import pkgutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import yaml

logging.disable(logging.CRITICAL)

MODEL_DIR_NAME = "model"
CONTAINER_NAME = "c.sqsh"


def node_ip(host: str) -> str:
    """Deterministic fake address for node{i}: 10.77.<i//250>.<i%250+1>."""
    i = int(host.removeprefix("node")) if host.startswith("node") else 249
    return f"10.77.{i // 250}.{i % 250 + 1}"


RECORDED: list[dict[str, Any]] = []

#: the `cluster` variant: srtslurm.yaml keys beyond the aliases, `{tmp}` being the job's directory. Those that
#: change a launch: srtctl_root (its configs/ at /configs, its wheelhouse at /srtctl-wheels: both exist here),
#: default_mounts, default_bash_preamble (every srun with srtctl's bash wrapper), nginx_raise_ulimit; the rest
#: (sbatch directives, account, health check, gpus_per_node, which srtctl does not read for a launch) must
#: change none.
CLUSTER: dict[str, Any] = {
    "cluster": "parity",
    "default_account": "acct",
    "default_partition": "batch",
    "default_time_limit": "02:00:00",
    "gpus_per_node": 8,
    "network_interface": "ib0",
    "use_gpus_per_node_directive": False,
    "use_segment_sbatch_directive": False,
    "use_exclusive_sbatch_directive": True,
    "default_sbatch_directives": {"comment": "parity"},
    "default_health_check": {"max_attempts": 7, "interval_seconds": 3},
    "srtctl_root": "{tmp}/root",
    # srtctl expands variables in a host path and resolves it (`..`, symlinks)
    "default_mounts": {
        "{tmp}/data": "/data",
        "{tmp}/cache/../cache": "/root/.cache",
        "${HOME}/.parity": "/parity",
        "scratch": "/scratch",  # relative: from srtctl's working directory, its checkout
    },
    "default_bash_preamble": "ulimit -n 1048576 -s unlimited",
    "nginx_raise_ulimit": True,  # srtctl's default is false
}
#: directories the `cluster` variant's checkout holds (srtctl mounts what exists)
CLUSTER_DIRS = ("root/configs", "root/wheelhouse/dynamo", "data", "cache")


class _FakePopen:
    pid = 1
    returncode = None

    def poll(self) -> None:
        return None

    def wait(self, timeout: float | None = None) -> int:
        return 0


def _record(command: list[str], **kw: Any) -> _FakePopen:
    mounts = kw.get("container_mounts") or {}
    RECORDED.append(
        {
            "command": [str(c) for c in command],
            "nodes": kw.get("nodes", 1),
            "ntasks": kw.get("ntasks", 1),
            "cpus_per_task": kw.get("cpus_per_task"),
            "nodelist": list(kw.get("nodelist") or []),
            "output": kw.get("output"),
            "container_image": None if kw.get("container_image") is None else str(kw.get("container_image")),
            "container_mounts": {str(k): str(v) for k, v in mounts.items()},
            "env": dict(kw.get("env_to_set") or {}),
            "unset_env": list(kw.get("env_to_unset") or []),
            "env_pass_through": list(kw.get("env_to_pass_through") or []),
            "bash_preamble": kw.get("bash_preamble"),
            "srun_options": dict(kw.get("srun_options") or {}),
            "srun_export_env": dict(kw.get("srun_export_env") or {}),
            "overlap": kw.get("overlap", True),
            "use_bash_wrapper": kw.get("use_bash_wrapper", True),
            "mpi": kw.get("mpi"),
            "oversubscribe": kw.get("oversubscribe", False),
            "cpu_bind": kw.get("cpu_bind"),
            "het_group": kw.get("het_group"),
            # what start_srun_process itself prepends: the cluster's preamble, on every srun with its bash wrapper
            "cluster_preamble": _cluster_preamble() if kw.get("use_bash_wrapper", True) else None,
        }
    )
    return _FakePopen()


def _cluster_preamble() -> str | None:
    from srtctl.core.slurm import _get_cluster_bash_preamble

    return _get_cluster_bash_preamble()


def _true(*_a: Any, **_k: Any) -> bool:
    return True


def _patch_everything() -> None:
    """Replace every by-name import of the launch and wait functions in srtctl's modules."""
    import srtctl

    for info in pkgutil.walk_packages(srtctl.__path__, "srtctl."):
        if any(s in info.name for s in (".mcp", ".ruter", ".analysis", ".render", ".benchmarks.scripts")):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - optional extras
            continue
    fakes = {
        "start_srun_process": _record,
        "get_hostname_ip": lambda host, *_a, **_k: node_ip(host),
        "wait_for_port": _true,
        "wait_for_model": _true,
        "wait_for_health": _true,
    }
    for name, mod in list(sys.modules.items()):
        if not name.startswith("srtctl") or mod is None:
            continue
        for attr, fake in fakes.items():
            if hasattr(mod, attr):
                setattr(mod, attr, fake)


def _variant_config(path: Path, selector: str | None, tmp: Path) -> Path:
    """The YAML srtctl would load for this job (an override variant written out, as srtctl does)."""
    if selector is None:
        return path
    if selector.startswith("sweep["):
        from srtctl.core.sweep import generate_sweep_configs

        raw = yaml.safe_load(path.read_text())
        index = int(selector[len("sweep[") : -1])
        cfg = list(generate_sweep_configs(raw))[index]
        cfg = cfg[0] if isinstance(cfg, tuple) else cfg
        out = tmp / "variant.yaml"
        out.write_text(yaml.safe_dump(cfg, sort_keys=False))
        return out
    from srtctl.core.config import generate_override_configs

    raw = yaml.safe_load(path.read_text())
    [(suffix, cfg)] = generate_override_configs(raw, selector=selector)
    out = tmp / "variant.yaml"
    out.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return out


def _sbatch_lines(config: Any, cfg_path: Path) -> list[str]:
    """The `#SBATCH` directives srtctl's submit writes for this job (its own template), name and log aside."""
    from srtctl.cli.submit import generate_minimal_sbatch_script

    script = generate_minimal_sbatch_script(config, cfg_path)
    lines = [ln.removeprefix("#SBATCH ").strip() for ln in script.splitlines() if ln.startswith("#SBATCH ")]
    return [ln for ln in lines if not ln.startswith(("--job-name", "--output"))]


def record_job(spec: str, work: Path, variant: str = "minimal") -> dict[str, Any]:
    from srtctl.cli.do_sweep import SweepOrchestrator
    from srtctl.core import config as config_mod
    from srtctl.core.processes import ProcessRegistry
    from srtctl.core.runtime import RuntimeContext

    file, _, selector = spec.partition(".yaml:")
    path = Path(file + ".yaml") if selector else Path(spec)
    tmp = Path(tempfile.mkdtemp(dir=work))
    (tmp / MODEL_DIR_NAME).mkdir()
    (tmp / CONTAINER_NAME).write_text("")
    sweep = selector.startswith("sweep[")
    raw = yaml.safe_load(path.read_text())
    cfg_path = path
    if selector and not sweep:  # an override variant: its own model and container
        cfg_path = _variant_config(path, selector, tmp)
        raw = yaml.safe_load(cfg_path.read_text())
    model = raw.get("model") or {}
    path_key = str(model.get("path", ""))
    cluster = {
        "network_interface": "eth0",
        # a Hugging Face id (hf:...) is downloaded at run time: no alias
        "model_paths": {} if path_key.startswith("hf:") else {path_key: str(tmp / MODEL_DIR_NAME)},
        "containers": {str(model.get("container", "")): str(tmp / CONTAINER_NAME)},
    }
    fe = raw.get("frontend") or {}
    if fe.get("nginx_container"):
        cluster["containers"][str(fe["nginx_container"])] = str(tmp / CONTAINER_NAME)
    checkout = tmp
    if variant == "cluster":
        cluster = {**yaml.safe_load(yaml.safe_dump(CLUSTER).replace("{tmp}", str(tmp))), **cluster}
        cluster["network_interface"] = CLUSTER["network_interface"]
        checkout = tmp / "root"
        # the aliases as srtctl resolves them (variables expanded, `..` and `./` resolved)
        cluster["model_paths"] = {k: f"{tmp}/cache/../{MODEL_DIR_NAME}" for k in cluster["model_paths"]}
        cluster["containers"] = {k: f"{tmp}/./{CONTAINER_NAME}" for k in cluster["containers"]}
        for d in CLUSTER_DIRS:
            (tmp / d).mkdir(parents=True)
    elif variant != "minimal":
        raise SystemExit(f"unknown cluster-config variant {variant!r} (minimal, cluster)")
    (tmp / "srtslurm.yaml").write_text(yaml.safe_dump(cluster))
    os.environ["SRTSLURM_CONFIG"] = str(tmp / "srtslurm.yaml")
    # srtctl's batch script exports its checkout (`srtctl_root`, else srtctl's own) as SRTCTL_SOURCE_DIR; here
    # the checkout is `srtctl_root`, else where the srtslurm.yaml sits (as discovery finds it). For `dynamo.wheel`
    # the script stages the wheels into <checkout>/wheelhouse/dynamo before the orchestrator starts
    # (dynamo_wheels.py prefetch).
    os.environ["SRTCTL_SOURCE_DIR"] = str(checkout)
    os.chdir(checkout)  # the batch script runs the orchestrator from the checkout (`cd "${SRTCTL_SOURCE}"`)
    if (raw.get("dynamo") or {}).get("wheel"):
        (checkout / "wheelhouse" / "dynamo").mkdir(parents=True, exist_ok=True)
    if sweep:  # srtctl expands a sweep with the cluster's aliases applied first
        cfg_path = _variant_config(path, selector, tmp)
    out_dir = tmp / "out"
    os.environ["SRTCTL_OUTPUT_DIR"] = str(out_dir)
    config = config_mod.load_config(cfg_path)
    total = config.total_nodes + sum(
        (config.infra.etcd_nats_dedicated_node, config.frontend.dedicated_node, config.benchmark.client_dedicated_node)
    )
    nodes = [f"node{i}" for i in range(total)]
    os.environ.update(
        {"SLURM_JOB_ID": "4242", "SLURM_JOBID": "4242", "SLURM_NODELIST": ",".join(nodes), "SLURM_NNODES": str(total)}
    )
    import srtctl.core.runtime as rt
    import srtctl.core.slurm as sl

    sl.get_slurm_nodelist = lambda: list(nodes)  # type: ignore[assignment]
    rt.get_slurm_nodelist = lambda: list(nodes)  # type: ignore[attr-defined]
    runtime = RuntimeContext.from_config(config, job_id="4242")
    orch = SweepOrchestrator(config=config, runtime=runtime)
    RECORDED.clear()
    registry = ProcessRegistry(job_id="4242")
    stages = []
    if config.frontend.type not in {"trtllm_serve", "vllm"}:
        stages.append(("infra", lambda: orch.start_head_infrastructure(registry)))
    stages.append(("mooncake", lambda: orch.start_mooncake_master(registry)))
    stages.append(("worker", orch.start_all_workers))
    stages.append(("frontend", lambda: orch.start_frontend(registry, threading.Event())))
    procs = []
    for stage, fn in stages:
        start = len(RECORDED)
        fn()
        for rec in RECORDED[start:]:
            rec["stage"] = stage
            procs.append(rec)
    files = {}
    for f in sorted((out_dir / "logs").rglob("*")):
        if f.is_file() and f.suffix in (".yaml", ".yml", ".json", ".conf") and f.stat().st_size < 200_000:
            files[str(f.relative_to(out_dir / "logs"))] = f.read_text(errors="replace")
    return {
        "spec": spec,
        "tmp": str(tmp),
        "sbatch": _sbatch_lines(config, cfg_path),
        "nodes": nodes,
        "head": runtime.nodes.head,
        "infra": runtime.nodes.infra,
        "backend": config.backend_type,
        "frontend": config.frontend.type,
        "processes": procs,
        "files": files,
        # the checkout's directories srtctl saw (staged wheelhouse, configs/, mounted dirs), for the replay
        "dirs": sorted(
            str(d.relative_to(tmp))
            for d in tmp.rglob("*")
            if d.is_dir() and d.relative_to(tmp).parts[0] not in ("out", MODEL_DIR_NAME) and not any(d.iterdir())
        ),
    }


def main() -> None:
    specs = json.loads(Path(sys.argv[1]).read_text())
    work = Path(sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp())
    variant = sys.argv[4] if len(sys.argv) > 4 else "minimal"
    work.mkdir(parents=True, exist_ok=True)
    _patch_everything()
    with open(sys.argv[2], "w") as out:
        for spec in specs:
            try:
                doc = record_job(spec, work, variant)
            except BaseException as exc:  # noqa: BLE001 - a job srtctl refuses is recorded as such
                doc = {"spec": spec, "error": f"{type(exc).__name__}: {exc}"[:500]}
            out.write(json.dumps(doc) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
