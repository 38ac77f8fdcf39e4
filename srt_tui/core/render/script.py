"""Render a JobPlan into the bash launch script (deterministic: same plan, byte-identical text)."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from srt_tui.core import placeholders as ph
from srt_tui.core.capabilities import Registration
from srt_tui.core.errors import config_error
from srt_tui.core.jobdir.contract import ENDPOINTS_VERSION
from srt_tui.core.plan.model import JobPlan, ProcessPlan, RouterPlan
from srt_tui.core.render.shell import word, words
from srt_tui.core.spec.slurm_values import mount_problem, sbatch_line_problem
from srt_tui.core.template_files import template

IP_PROBE = (
    'iface="$1"; addr=$(ip -o -4 addr show dev "$iface" 2>/dev/null | awk \'{split($4, a, "/"); print a[1]; exit}\'); '
    "if [ -z \"$addr\" ]; then addr=$(hostname -I 2>/dev/null | awk '{print $1}'); fi; printf '%s\\n' \"$addr\""
)
STEP_WRAP = (
    'fp=$1; shift; if [ -n "${SRT_PREAMBLE:-}" ]; then eval "$SRT_PREAMBLE"; fi; '
    'if [ -n "$fp" ]; then python3 -c "$SRT_FINGERPRINT_PY" "$fp" >/dev/null || true; fi; exec "$@"'
)

# exports each `NAME=REF` pair's value from the job's secrets.env (handed to this step alone, as `REF=value`
# before its srt_step), so a secret never appears in a command line and each scope keeps its own value
SECRET_WRAP = 'for m in $1; do r=${m#*=}; export "${m%%=*}=${!r-}"; done; shift; exec "$@"'

# srtctl's setup_script: the first of two paths that exists runs before the step's command; none is fatal
SETUP_WRAP = (
    'if [ -f "$1" ]; then s=$1; elif [ -f "$2" ]; then s=$2; else '
    'echo "srt-tui: setup script $1 not found (nor $2)" >&2; exit 1; fi; bash "$s" || exit $?; shift 2; exec "$@"'
)
# the ai-dynamo install of a Dynamo step, after the setup script as in srtctl; its failure ends the step
INSTALL_WRAP = 'eval "$1" || { echo "srt-tui: the ai-dynamo install failed" >&2; exit 1; }; shift; exec "$@"'


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _directive(key: str, value: str | None) -> str:
    found = sbatch_line_problem(key, value)  # checked on load; again here for values edited in memory
    if found:
        raise config_error(found[0], field=f"sbatch_directives.{key}", hint=found[1])
    return f"#SBATCH --{key}" if value is None else f"#SBATCH --{key}={value}"


def _array(name: str, items: list[str]) -> str:
    return f"{name}=({' '.join(items)})" if items else f"{name}=()"


def _fingerprint_path(p: ProcessPlan) -> str:
    index = p.worker.rsplit("_", 1)[-1] if p.worker else "0"
    suffix = f"_r{p.node_rank}" if p.node_rank else ""
    return f"{ph.LOGS}/fingerprint_{p.role}_w{index}{suffix}.json"


def _step(
    p: ProcessPlan, wrap: bool, prefix: list[str] | None = None, drop: str | None = None, opts: bool = False
) -> str:
    """One `srt_step` line; `opts`: the job has recipe srun options (withheld from steps that take none)."""
    env = [arg for k in p.unset_env for arg in ("-u", k)] + [f"{k}={v}" for k, v in p.env if k != drop]
    argv = (["env", *env] if env else []) + list(prefix or []) + list(p.command)
    if p.install:
        argv = ["bash", "-c", INSTALL_WRAP, "srt-install", p.install, *argv]
    if p.setup_script:
        argv = ["bash", "-c", SETUP_WRAP, "srt-setup", *p.setup_script, *argv]
    if p.secret_env:
        argv = ["bash", "-c", SECRET_WRAP, "srt-secrets", " ".join(f"{k}={ref}" for k, ref in p.secret_env), *argv]
    fp = _fingerprint_path(p) if p.kind == "worker" else ""
    if wrap or fp:
        argv = ["bash", "-c", STEP_WRAP, "srt-step", fp, *argv]
    log = word(f"<job_dir>/{p.log}")
    image = "SRT_STEP_NO_OPTS=1 " if opts and not p.recipe_srun_options else ""
    if p.srun_step_options:
        own = [f"--{k}" if v is None else f"--{k}={v}" for k, v in p.srun_step_options]
        if any(any(c.isspace() for c in o) for o in own):  # srt-tui's own options: one word each
            raise ValueError(f"{p.name}: srun option with whitespace: {own}")
        image += f"SRT_STEP_SRUN={word(' '.join(own))} "
    image += f"SRT_STEP_IMAGE={word(p.container_image)} " if p.container_image else ""
    for name, ref in p.secret_env:  # exported to this step alone: secrets.env is sourced, never exported
        if not _IDENT.fullmatch(ref):
            raise config_error(f"`{name}` cannot be an environment variable name", field=f"env.{name}")
        image += f'{ref}="${{{ref}-}}" '
    if p.install:  # pip installs into the container's root-owned site-packages (srtctl: the same export)
        image += "SRT_STEP_EXPORT=ALL,ENROOT_REMAP_ROOT=yes "
    if p.step_nodes:
        nodes = ",".join(str(n) for n in p.step_nodes)
        image += f"SRT_STEP_MPI={word(p.mpi or 'pmix')} SRT_STEP_NODES={nodes} "
        image += f"SRT_STEP_TASKS={p.tasks} SRT_STEP_TPN={p.tasks_per_node} "
    return f"{image}srt_step {word(p.name)} {p.kind} {p.node_index} {log} -- \\\n  {words(argv)}"


def _port_of(url: str | None, default: int) -> int:
    """The port of `http://<ip:nodeK>:PORT/...` (a worker's health URL), else `default`."""
    if not url:
        return default
    tail = url.rsplit(":", 1)[-1].split("/", 1)[0]
    return int(tail) if tail.isdigit() else default


def _node_masks(p: ProcessPlan, ranks: list[ProcessPlan]) -> list[str]:
    """srtctl's rule for an MPI step whose nodes need different masks: pick the mask by `$SLURMD_NODENAME`.

    Returns an argv prefix (empty when every node of the step takes the same mask, set in its env).
    """
    masks = [(r.node_index, r.visible_devices) for r in (p, *ranks)]
    if len({m for _, m in masks}) <= 1:
        return []
    table = " ".join(f"{ph.host(n)}={m or ''}" for n, m in masks)
    pick = (
        'for m in $1; do if [[ ${m%%=*} == "$SLURMD_NODENAME" ]]; then found=1; '
        'if [[ -n ${m#*=} ]]; then export "$SRT_VISIBLE_DEVICES_ENV=${m#*=}"; fi; fi; done; '
        '[[ -n ${found:-} ]] || { echo "no GPU mask for node $SLURMD_NODENAME" >&2; exit 1; }; shift; exec "$@"'
    )
    return ["bash", "-c", pick, "srt-mask", table]


def _endpoints_json(plan: JobPlan) -> str:
    routers = [
        {
            "name": r.process.name,
            "type": r.type,
            "node_index": r.process.node_index,
            "url": r.process.url,
            "workers_url": r.workers_url,
            "metrics_url": r.process.metrics_url,
        }
        for r in plan.routers()
    ]
    doc: dict[str, Any] = {
        "version": ENDPOINTS_VERSION,
        "job_id": "<job_id>",
        "interface": plan.network_interface,
        "nodes": [{"index": i, "hostname": ph.host(i), "ip": ph.ip(i)} for i in range(plan.nodes)],
        "workers": [
            {
                "name": w.name,
                "role": w.role,
                "node_index": w.node_index,
                "url": w.url,
                "health_url": w.health_url,
                "metrics_url": w.metrics_url,
                "bootstrap_port": w.ports.get("bootstrap"),
            }
            for w in plan.leaders()
        ],
        "router": routers[0] if routers else None,
        "public_url": plan.public_url,
    }
    if plan.nginx is not None:  # srtctl's multi-frontend layout: every router, and nginx in front
        doc["routers"] = routers
        doc["nginx"] = {"url": plan.nginx.url, "node_index": plan.nginx.node_index}
    if plan.gpu_exporter:
        doc["gpu_exporter_urls"] = list(plan.gpu_exporter.metrics_urls)
    return json.dumps(doc, indent=2)


def _wait_router(r: RouterPlan, first: bool) -> str:
    """Wait for one router's registrations; the first router's values are the script's constants."""
    return "srt_wait_router" if first else _wait_for(r.process, r.registration)


def _wait_for(p: ProcessPlan, registration: Registration) -> str:
    """`srt_wait_router` for a process other than the first router (another router, or nginx)."""
    return (
        f"SRT_ROUTER_NAME={word(p.name)} SRT_ROUTER_NODE={p.node_index} SRT_ROUTER_PORT={p.port} "
        f"SRT_ROUTER_REGISTRATION={registration} srt_wait_router"
    )


def render_script(plan: JobPlan) -> str:
    """The launch script: sbatch header, resolved constants, the static runtime, then the steps."""
    out: list[str] = [
        "#!/bin/bash",
        f"# srt-tui launch script: {plan.name} ({plan.topology}, {plan.serving}, profile {plan.profile})".replace(
            "\n", " "
        ),
        "# Generated by srt-tui; `srt-tui dry-run` shows this exact text.",
    ]
    out += [_directive(k, v) for k, v in plan.directives]
    # everything the job writes (logs, status, relay, engine configs) is the user's alone, whatever the umask
    out += ["", "set -euo pipefail", "umask 077", ""]
    leaders = plan.leaders()
    router = plan.router
    consts = [
        f"SRT_N_NODES={plan.nodes}",
        f"SRT_INTERFACE={word(plan.network_interface)}",
        f"export SRT_VISIBLE_DEVICES_ENV={word(plan.visible_devices_env)}",
        f"SRT_HEALTH_INTERVAL={plan.health_interval_s:g}",
        f"SRT_HEALTH_ATTEMPTS={plan.health_max_attempts}",
        "SRT_RELAY_INTERVAL=5",
        'SRT_LAUNCHER="${SRT_LAUNCHER:-slurm}"',
        'SRT_JOB_ID="${SLURM_JOB_ID:-${SRT_JOB_ID:-local}}"',
        'SRT_JOB_DIR="${SRT_JOB_DIR:-${SRT_OUTPUT_BASE:-$PWD}/$SRT_JOB_ID}"',
        'SRT_LOG_DIR="$SRT_JOB_DIR/logs"',
        f"SRT_IP_PROBE={shlex.quote(IP_PROBE)}",
        "# shellcheck disable=SC2089,SC2090  # python source, not shell words",
        f"export SRT_FINGERPRINT_PY={shlex.quote(template('fingerprint.py'))}",
    ]
    if plan.bash_preamble:
        consts += [f"SRT_PREAMBLE={shlex.quote(plan.bash_preamble)}", "export SRT_PREAMBLE"]
    if plan.identity:
        # the recipe's identity, checked by each worker's fingerprint against what it runs
        consts += [
            f"export SRT_IDENTITY={shlex.quote(json.dumps(plan.identity, sort_keys=True))}",
            f"export SRT_MODEL_DIR={word(plan.model_in_step)}",
        ]
    if plan.container_runtime == "pyxis":
        for m in plan.mounts:
            found = next(filter(None, (mount_problem(p) for p in (m.host, m.container) if p != "<log_dir>")), None)
            if found:
                raise config_error(found[0], field="container_mounts", hint=found[1])
        mounts = ",".join(
            ("<job_dir>/logs" if m.host == "<log_dir>" else m.host) + f":{m.container}" + (":ro" if m.readonly else "")
            for m in plan.mounts
        )
        consts += [
            "SRT_STEP_LOGS=/logs",
            _array(
                "SRT_CONTAINER_ARGS",
                [
                    word(f"--container-image={plan.container_image}"),
                    word(f"--container-mounts={mounts}"),
                    "--no-container-entrypoint",
                    "--no-container-mount-home",
                ],
            ),
        ]
    else:
        consts += ['SRT_STEP_LOGS="$SRT_LOG_DIR"', "SRT_CONTAINER_ARGS=()"]
    consts.append(
        _array("SRT_SRUN_OPTS", [word(f"--{k}" if v is None else f"--{k}={v}") for k, v in plan.srun_options])
    )
    consts += [
        _array("SRT_HEALTH_NAMES", [word(w.name) for w in leaders]),
        _array("SRT_HEALTH_HOSTS", [str(w.node_index) for w in leaders]),
        _array("SRT_HEALTH_PORTS", [str(_port_of(w.health_url, w.port)) for w in leaders]),
        f"SRT_ROUTER_NODE={router.process.node_index if router is not None else 0}",
    ]
    if plan.infra:
        consts += [
            _array("SRT_INFRA_NAMES", [word(p.name) for p in plan.infra]),
            _array("SRT_INFRA_HOSTS", [str(p.node_index) for p in plan.infra]),
            _array("SRT_INFRA_PORTS", [str(p.port) for p in plan.infra]),
        ]
    if router is not None:
        consts += [
            f"SRT_ROUTER_NAME={word(router.process.name)}",
            f"SRT_ROUTER_PORT={router.process.port}",
            f"SRT_ROUTER_METRICS_PORT={_port_of(router.process.metrics_url, 0) or ''}",
            f"SRT_ROUTER_REGISTRATION={router.registration}",
            f"SRT_EXPECT_PREFILL={router.expected.get('prefill', 0)}",
            f"SRT_EXPECT_DECODE={router.expected.get('decode', 0)}",
            f"SRT_EXPECT_AGG={router.expected.get('agg', 0)}",
        ]
    out += consts
    if plan.profiling:
        out.append(
            'mkdir -p "$SRT_LOG_DIR/profiles/prefill" "$SRT_LOG_DIR/profiles/decode" "$SRT_LOG_DIR/profiles/agg"'
        )
    out += [
        'mkdir -p "$SRT_LOG_DIR/config"',
        "",
        template("runtime.sh"),
        "",
        "# ---- this job ----------------------------------------------------------------------------",
        'if [[ -f "$SRT_JOB_DIR/secrets.env" ]]; then',
        "  # shellcheck source=/dev/null  # not exported: each step gets only its own scopes' secrets",
        '  source "$SRT_JOB_DIR/secrets.env"',
        "fi",
        'srt_event starting "job $SRT_JOB_ID via $SRT_LAUNCHER"',
        'srt_event "resolving nodes" "interface $SRT_INTERFACE"',
        "srt_resolve_nodes",
        "# servers listen on their node's address on the profile's interface, not on every interface",
        'SRT_BIND="${SRT_NODE_IPS[0]}"',
        "",
        "# endpoints.json: every URL, on the configured interface, written once",
        f"printf '%s\\n' {word(_endpoints_json(plan))} >\"$SRT_JOB_DIR/.endpoints.json.tmp\"",
        'mv -f "$SRT_JOB_DIR/.endpoints.json.tmp" "$SRT_JOB_DIR/endpoints.json"',
        "",
    ]
    config_writes: list[str] = []
    for p in plan.processes():
        for name, content in p.config_files:
            config_writes.append(f"printf '%s' {shlex.quote(content)} >\"$SRT_LOG_DIR/config/\"{word(name)}")
    if config_writes:
        out += [
            "# engine configuration, written inside the log mount the containers see as /logs",
            *config_writes,
            "",
        ]
    bind_local = 'SRT_BIND="${SRT_NODE_IPS[%d]}"'
    if plan.nginx_conf is not None and plan.nginx is not None:
        out += [
            "# nginx in front of the routers: its config (router addresses filled in) and writable prefix",
            bind_local % plan.nginx.node_index,
            'mkdir -p "$SRT_LOG_DIR/nginx"',
            f"printf '%s' {word(plan.nginx_conf)} >\"$SRT_LOG_DIR/nginx.conf\"",
            "",
        ]
    wrap = plan.bash_preamble is not None
    opts = bool(plan.srun_options)
    if plan.infra:
        out += [
            "# NATS/etcd state: a private directory of this job's in node 0's temp directory (removed at the end)",
            'SRT_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/srt-tui-$SRT_JOB_ID.XXXXXXXX")',
            'srt_event "infra starting" "discovery services on node 0"',
        ]
        for p in plan.infra:
            out += [bind_local % p.node_index, _step(p, wrap, opts=opts)]
        out += ["srt_wait_infra", ""]
    out.append(f'srt_event "workers starting" "{len(plan.workers)} process(es) on {plan.nodes} node(s)"')
    for p in plan.workers:
        if p.launched_by:
            out.append(f"# {p.name}: its ranks on node {p.node_index} run in {p.launched_by}'s MPI step")
            continue
        ranks = [r for r in plan.workers if r.launched_by == p.name]
        prefix = _node_masks(p, ranks)
        drop = plan.visible_devices_env if prefix else None  # the node's own mask comes from the prefix
        spans = len(set(p.step_nodes)) > 1  # one MPI step on several nodes: each rank binds where it runs
        out += [
            "SRT_BIND=0.0.0.0  # ranks on several nodes" if spans else bind_local % p.node_index,
            _step(p, wrap, prefix, drop, opts),
        ]
    out.append("")
    if plan.telemetry:
        out.append("# GPU metrics exporter on every node (telemetry): not part of readiness, its end fails nothing")
        for p in plan.telemetry:
            out += [bind_local % p.node_index, _step(p, wrap, opts=opts)]
        out.append("")
    if router is not None:
        if router.waits_for_healthy_workers:
            out += ["# static router: start it only once every worker is healthy", "srt_wait_workers"]
        if plan.nginx is not None:
            out += [
                'srt_event "router starting" ' + word(f"nginx on node {plan.nginx.node_index}"),
                bind_local % plan.nginx.node_index,
                # srtctl starts nginx with its own `bash -c`, bypassing the cluster's default_bash_preamble
                _step(plan.nginx, False, opts=opts),
            ]
        for r in plan.routers():
            p = r.process
            out += [
                'srt_event "router starting" ' + word(f"{r.type} {p.name} on node {p.node_index}"),
                bind_local % p.node_index,
                _step(p, wrap, opts=opts),
            ]
        waits = [_wait_router(r, r is router) for r in plan.routers()]
        if plan.nginx is not None:  # nginx answers once a router behind it does: a health probe, no registrations
            waits.append(_wait_for(plan.nginx, "worker-health"))
        # only the last wait says `router ready`: behind nginx, the job is ready once nginx answers too
        out += [f"SRT_ROUTER_STAGE='router starting' {w}" for w in waits[:-1]] + waits[-1:]
        if not router.waits_for_healthy_workers:
            out.append("srt_wait_workers")
    else:
        out += ["srt_wait_workers", 'srt_event "router ready" "direct: no router"']
    out.append("")
    if plan.profile_trigger is not None:
        out += [
            "# profiling: open each worker's capture window, then run the benchmark that fills it",
            _step(plan.profile_trigger, wrap, opts=opts),
            'wait "${SRT_PIDS[-1]}" || srt_log "profiling trigger failed; see logs/profile_trigger.log"',
        ]
    if plan.benchmark is not None:
        out += [
            'srt_event benchmark "running the benchmark"',
            "SRT_BIND=0.0.0.0",
            _step(plan.benchmark, wrap, opts=opts),
            'SRT_BENCH_PID="${SRT_PIDS[-1]}"',
            'SRT_BENCH_LOG="${SRT_PID_LOGS[-1]}"',
            "srt_serve",
            "SRT_FINAL=completed",
            'srt_event completed "benchmark finished"',
        ]
    else:
        out += ["srt_event serving " + word(f"serving at {plan.public_url}"), "srt_serve"]
    return "\n".join(out) + "\n"
