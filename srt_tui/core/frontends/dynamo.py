"""The Dynamo runtime around in-process Dynamo workers (`dynamo.sglang`, `dynamo.mocker`, ...).

Discovery (NATS + etcd on the infra node), the request/event planes, each worker's system server
(`DYN_SYSTEM_PORT`, whose `/health` is the worker's readiness) and the ai-dynamo install at job
start, with srtctl's meaning: ports 4222/2379, planes from the recipe's `dynamo:` block.
"""

from __future__ import annotations

import shlex

from srt_tui.core import placeholders as ph
from srt_tui.core.spec.recipe import DynamoSpec, InfraSpec

NATS_PORT = 4222
ETCD_CLIENT_PORT = 2379
ETCD_PEER_PORT = 2380
#: the worker endpoint whose readiness turns the system server's /health to 200
READY_ENDPOINTS = '["generate"]'
#: PyPI and NVIDIA's index, where srtctl installs ai-dynamo from
NVIDIA_INDEX = "https://pypi.nvidia.com"
DYNAMO_GIT = "https://github.com/ai-dynamo/dynamo.git"
#: srtctl's default Rust log filter for workers (a recipe's DYN_LOG wins)
WORKER_LOG = "info,dynamo_runtime::pipeline::network::ingress::push_handler=warn"


def discovery_env(infra_node: int) -> list[tuple[str, str]]:
    """Where workers and the frontend find etcd and NATS (the infra node's address)."""
    return [
        ("ETCD_ENDPOINTS", f"http://{ph.ip(infra_node)}:{ETCD_CLIENT_PORT}"),
        ("NATS_SERVER", f"nats://{ph.ip(infra_node)}:{NATS_PORT}"),
    ]


def worker_stage_env(
    spec: DynamoSpec, head_node: int, infra_node: int, sys_port: int, request_plane: bool
) -> list[tuple[str, str]]:
    """srtctl's worker-stage variables, on every worker whatever its engine and frontend (a worker that does
    not speak Dynamo ignores them): the head node, discovery, the system port, the planes, the log filter.
    srtctl passes `DYN_REQUEST_PLANE` to per-node workers only; its MPI (TRT-LLM) workers get the flag alone."""
    env = [("HEAD_NODE_IP", ph.ip(head_node)), *discovery_env(infra_node), ("DYN_SYSTEM_PORT", str(sys_port))]
    if request_plane:
        env.append(("DYN_REQUEST_PLANE", spec.request_plane))
    env.append(("DYN_SKIP_SGLANG_LOG_FORMATTING", "1"))
    if spec.event_plane:
        env.append(("DYN_EVENT_PLANE", spec.event_plane))
    return [*env, ("DYN_LOG", WORKER_LOG)]


def health_gate_env() -> list[tuple[str, str]]:
    """A Dynamo worker's system server healthy once its `generate` endpoint serves (deviation `health-gate`).

    Older runtimes start the server only with `DYN_SYSTEM_ENABLED`; ai-dynamo 1.6.1 calls that and
    `DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS` deprecated, yet without the latter its dynamo.mocker's /health
    stayed 503 "notready" (measured: 200 within 2 s with it, 503 after 25 s without).
    """
    return [("DYN_SYSTEM_ENABLED", "true"), ("DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", READY_ENDPOINTS)]


def plane_env(spec: DynamoSpec) -> list[tuple[str, str]]:
    """`DYN_REQUEST_PLANE` (and `DYN_EVENT_PLANE` when the recipe sets one), as srtctl exports them."""
    env = [("DYN_REQUEST_PLANE", spec.request_plane), ("DYN_SKIP_SGLANG_LOG_FORMATTING", "1")]
    if spec.event_plane:
        env.append(("DYN_EVENT_PLANE", spec.event_plane))
    return env


#: node-local storage for JetStream and etcd's WAL, as srtctl keeps them in /tmp (a shared file
#: system's latency times out etcd's raft); a private `mktemp -d` of the job's there, never a predictable
#: path another user of the node could create first
STATE_DIR = ph.SCRATCH


def nats_argv(infra: InfraSpec) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """NATS with JetStream on node-local storage; a config file only for `nats_max_payload_mb`."""
    argv = ["nats-server", "-js", "-sd", f"{STATE_DIR}/nats", "-a", ph.BIND, "-p", str(NATS_PORT)]
    if infra.nats_max_payload_mb is None:
        return tuple(argv), ()
    conf = f"max_payload: {infra.nats_max_payload_mb * 1024 * 1024}\n"
    return ("nats-server", "-c", f"{ph.LOGS}/config/nats.conf", *argv[1:]), (("nats.conf", conf),)


def etcd_argv(infra_node: int) -> tuple[str, ...]:
    """A one-member etcd advertising the infra node's address (peers on localhost: nobody joins)."""
    return (
        "etcd",
        "--data-dir",
        f"{STATE_DIR}/etcd",
        "--listen-client-urls",
        f"http://{ph.BIND}:{ETCD_CLIENT_PORT}",
        "--advertise-client-urls",
        f"http://{ph.ip(infra_node)}:{ETCD_CLIENT_PORT}",
        "--listen-peer-urls",
        f"http://127.0.0.1:{ETCD_PEER_PORT}",
    )


#: where srtctl's staged ai-dynamo wheels (`<srtctl_root>/wheelhouse/dynamo`) appear inside the steps
WHEELHOUSE = "/srtctl-wheels"


def wheel_env(spec: DynamoSpec) -> list[tuple[str, str]]:
    """srtctl's variables for `dynamo.wheel` (`DynamoConfig.get_wheel_environment`): the wheel's file name and
    version, first in its global environment (the recipe's `environment:` may override them), on every worker
    and the Dynamo frontend; empty for any other install source."""
    if not spec.wheel:
        return []
    return [("DYNAMO_WHEEL_NAME", f"ai_dynamo-{spec.wheel}-py3-none-any.whl"), ("DYNAMO_VERSION", spec.wheel)]


def install_script(spec: DynamoSpec) -> str:
    """Shell that installs the asked ai-dynamo inside the step, once per environment (serialised by flock).

    Several steps on one node share a container's site-packages: the first installs under an
    exclusive lock and leaves a marker, the others find the marker and go on.
    """
    if spec.wheel is not None:  # srtctl's staged wheels: <srtctl_root>/wheelhouse/dynamo, mounted at /srtctl-wheels
        v = shlex.quote(spec.wheel)
        body = (
            f"python3 -m pip install --quiet --pre --no-deps --no-index --find-links {WHEELHOUSE}"
            f" ai-dynamo-runtime=={v} ai-dynamo=={v}"
        )
    elif spec.version is not None:
        v = shlex.quote(spec.version)
        body = f"python3 -m pip install --quiet --extra-index-url {NVIDIA_INDEX} ai-dynamo-runtime=={v} ai-dynamo=={v}"
    else:
        checkout = f' && git -C "$src" checkout --quiet {shlex.quote(spec.hash)}' if spec.hash else ""
        body = (
            'src="$(mktemp -d)/dynamo"'
            f' && git clone --quiet {DYNAMO_GIT} "$src"{checkout}'
            " && { command -v cargo >/dev/null || { curl -sSf https://sh.rustup.rs | sh -s -- -y -q"
            ' && . "$HOME/.cargo/env"; }; }'
            " && python3 -m pip install --quiet maturin"
            ' && (cd "$src/lib/bindings/python" && maturin build --release -o "$src/wheels")'
            ' && python3 -m pip install --quiet "$src"/wheels/ai_dynamo_runtime*.whl "$src"'
        )
    marker = '"$prefix/.srt-tui-dynamo-installed"'
    say = shlex.quote(f"srt-tui: installing ai-dynamo ({spec.source})")
    return (
        'prefix="$(python3 -c \'import sys; print(sys.prefix)\' 2>/dev/null || true)"; prefix="${prefix:-$HOME}"'
        f" && ( flock -x 9; if [ ! -f {marker} ]; then echo {say}"
        f' && {body} && touch {marker}; fi ) 9>"$prefix/.srt-tui-dynamo.lock"'
    )
