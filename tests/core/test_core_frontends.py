"""srtctl's frontend layout: nginx on the head node in front of `min(num_additional_frontends + 1, other
nodes)` routers on the next nodes (port 8180), or one router on the head (8000) on one node or with
`enable_multiple_frontends: false`; nginx.conf as srtctl writes it; srtctl's defaults in both schemas."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare_job
from srt_tui.core.plan.model import JobPlan
from srt_tui.core.render.script import render_script
from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import Recipe, load_recipe
from tests.conftest import require


def _plan(nodes: int, frontend: dict[str, Any], profile: str = "nvidia-h100") -> JobPlan:
    recipe = Recipe.model_validate(
        {
            "name": "fe",
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": {"type": "sglang"},
            "roles": {"agg": {"nodes": nodes, "workers": nodes, "gpus": 8}},
            "frontend": {"type": "sglang-router", **frontend},
        }
    )
    return prepare_job(recipe, load_profile(profile)).plan


@pytest.mark.parametrize(
    ("nodes", "frontend", "routers", "nginx"),
    [
        (1, {}, [(0, 8000)], False),  # one node: one router on the head, no nginx
        (2, {}, [(1, 8180)], True),  # srtctl's default: nginx on n0, one router on n1
        (4, {}, [(1, 8180), (2, 8180), (3, 8180)], True),
        (4, {"num_additional_frontends": 1}, [(1, 8180), (2, 8180)], True),
        (4, {"num_additional_frontends": 0}, [(1, 8180)], True),
        (4, {"enable_multiple_frontends": False}, [(0, 8000)], False),
    ],
)
def test_layout_follows_srtctl(
    nodes: int, frontend: dict[str, Any], routers: list[tuple[int, int]], nginx: bool
) -> None:
    plan = _plan(nodes, frontend)
    assert [(r.process.node_index, r.process.port) for r in plan.routers()] == routers
    assert [r.process.name for r in plan.routers()][:2] == ["router", "router_1"][: len(routers)]
    assert (plan.nginx is not None) == nginx
    if plan.nginx is not None:
        assert (plan.nginx.node_index, plan.nginx.port) == (0, 8000)
        assert plan.public_url == "http://<ip:node0>:8000"
        assert plan.nginx.container_image == "nginx:1.27.4"  # srtctl's default image, for pyxis
        for r in plan.routers():  # every router fronts every worker
            assert all(w.url in r.process.command for w in plan.leaders())
        doc = json.loads(plan.to_json_text())
        assert doc["nginx"]["upstreams"] == [f"http://<ip:node{n}>:8180" for n, _ in routers]
        assert [r["name"] for r in doc["routers"]] == [r.process.name for r in plan.routers()]
        assert doc["router"] == doc["routers"][0]
    else:
        assert plan.public_url == "http://<ip:node0>:8000"


def test_nginx_conf_is_srtctls_shape_with_writable_paths_under_the_logs() -> None:
    plan = _plan(3, {"nginx_keepalive_timeout": "90s"})
    conf = plan.nginx_conf or ""
    assert "server <ip:node1>:8180 max_fails=0;\n" in conf and "server <ip:node2>:8180 max_fails=0;\n" in conf
    assert "hash " not in conf  # round-robin unless session affinity is asked for
    for line in ("client_max_body_size 45m;", "keepalive 512;", "proxy_read_timeout 24h;", "keepalive_timeout 90s;"):
        assert line in conf
    for path in ("pid <logs>/nginx/nginx.pid;", "client_body_temp_path <logs>/nginx/client_body_temp;"):
        assert path in conf
    affinity = _plan(3, {"nginx_session_affinity": True, "nginx_session_affinity_header": "X-Correlation-ID"})
    conf = affinity.nginx_conf or ""
    assert "map $http_x_correlation_id $srt_affinity_key" in conf and "hash $srt_affinity_key consistent;" in conf


def test_raise_ulimit_comes_from_the_recipe_else_the_profile(tmp_path: Path) -> None:
    assert "worker_rlimit_nofile" not in (_plan(2, {}).nginx_conf or "")
    plan = _plan(2, {"nginx_raise_ulimit": True})
    assert "worker_rlimit_nofile 1048576;" in (plan.nginx_conf or "")
    # srtctl's command in the container (pyxis), root through --container-remap-root; on a host, unprivileged
    in_container = plan.container_runtime == "pyxis"
    expected = "ulimit -n 1048576 && nginx -c <logs>/nginx.conf -g 'daemon off;'" if in_container else None
    assert plan.nginx is not None and plan.nginx.command[:3] == (
        "bash",
        "-c",
        expected or 'ulimit -n 1048576 && exec "$@"',
    )
    assert plan.nginx.srun_step_options == ((("container-remap-root", None),) if in_container else ())
    assert not plan.nginx.recipe_srun_options
    profile = tmp_path / "p.yaml"
    profile.write_text("gpus_per_node: 8\ncontainer_runtime: none\nnginx_raise_ulimit: true\n")
    assert "worker_rlimit_nofile" in (_plan(2, {}, str(profile)).nginx_conf or "")
    assert "worker_rlimit_nofile" not in (_plan(2, {"nginx_raise_ulimit": False}, str(profile)).nginx_conf or "")


def test_schema1_recipe_that_omits_the_keys_gets_nginx_as_in_srtctl(tmp_path: Path) -> None:
    path = tmp_path / "v1.yaml"
    path.write_text(
        "name: v1\nmodel: {path: /models/m, container: /c/i.sqsh, precision: fp8}\n"
        "resources: {gpu_type: h100, gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 2,"
        " prefill_workers: 1, decode_workers: 2}\nbackend: {type: sglang}\nfrontend: {type: sglang}\n"
    )
    recipe, source = load_recipe(str(path))
    plan = prepare_job(recipe, load_profile("nvidia-h100"), source).plan
    assert plan.nginx is not None and [r.process.node_index for r in plan.routers()] == [1, 2]


def test_direct_serving_never_gets_nginx_and_an_explicit_request_is_a_warning() -> None:
    recipe = Recipe.model_validate(
        {
            "name": "direct",
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": {"type": "trtllm"},
            "roles": {"agg": {"nodes": 2, "workers": 1, "gpus": 16}},
            "frontend": {"type": "none", "enable_multiple_frontends": True},
        }
    )
    plan = prepare_job(recipe, load_profile("nvidia-h100")).plan
    assert plan.nginx is None and plan.router is None
    assert any(w.field == "frontend.enable_multiple_frontends" for w in plan.warnings)


def test_rendered_nginx_conf_is_accepted_by_nginx(tmp_path: Path) -> None:
    """The config the script writes (router addresses filled in) passes `nginx -t` with no root paths."""
    require(shutil.which("nginx") is not None, "nginx on PATH (Debian package `nginx`)")
    plan = _plan(3, {"nginx_session_affinity": True}, "local")
    script = render_script(plan)
    line = next(x for x in script.splitlines() if x.startswith("printf '%s' \"# nginx in front"))
    start = script.index(line)
    end = script.index('>"$SRT_LOG_DIR/nginx.conf"', start)
    logs = tmp_path / "logs"
    (logs / "nginx").mkdir(parents=True)
    setup = f"SRT_NODE_IPS=(10.0.0.1 10.0.0.2 10.0.0.3); SRT_BIND=127.0.0.1; SRT_STEP_LOGS={logs}"
    write = f"{setup}; {script[start:end]}>{logs}/nginx.conf"
    subprocess.run(["bash", "-c", write], check=True, timeout=10)
    conf = (logs / "nginx.conf").read_text()
    assert "server 10.0.0.2:8180 max_fails=0;" in conf and "server 10.0.0.3:8180 max_fails=0;" in conf
    assert "listen 127.0.0.1:8000;" in conf  # the head node's bind address (the local launcher's own IP)
    argv = [a.replace("<logs>", str(logs)) for a in (plan.nginx.command if plan.nginx else ())]
    proc = subprocess.run([*argv[:-2], "-t"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "test is successful" in proc.stderr


def test_with_a_dedicated_infra_node_nginx_runs_on_the_first_worker_node() -> None:
    """srtctl's head is the first worker node: NATS/etcd on node 0, nginx on node 1, frontends on 2 and 3."""
    recipe = Recipe.model_validate(
        {
            "name": "dyn",
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": {"type": "sglang"},
            "roles": {"agg": {"nodes": 3, "workers": 3, "gpus": 8}},
            "frontend": {"type": "dynamo"},
            "infra": {"etcd_nats_dedicated_node": True},
        }
    )
    plan = prepare_job(recipe, load_profile("nvidia-h100")).plan
    assert {p.node_index for p in plan.infra} == {0}
    assert plan.nginx is not None and plan.nginx.node_index == 1 and plan.public_url == "http://<ip:node1>:8000"
    assert [(r.process.node_index, r.process.port) for r in plan.routers()] == [(2, 8180), (3, 8180)]
    assert all("--http-port=8180" in r.process.command for r in plan.routers())


def test_the_job_is_ready_only_once_every_router_and_nginx_answer() -> None:
    plan = _plan(3, {})
    waits = [x for x in render_script(plan).splitlines() if x.endswith("srt_wait_router")]
    assert waits == [
        "SRT_ROUTER_STAGE='router starting' srt_wait_router",
        "SRT_ROUTER_STAGE='router starting' SRT_ROUTER_NAME=router_1 SRT_ROUTER_NODE=2 SRT_ROUTER_PORT=8180 "
        "SRT_ROUTER_REGISTRATION=router-workers srt_wait_router",
        "SRT_ROUTER_NAME=nginx SRT_ROUTER_NODE=0 SRT_ROUTER_PORT=8000 SRT_ROUTER_REGISTRATION=worker-health "
        "srt_wait_router",
    ]
    assert [x for x in render_script(_plan(1, {})).splitlines() if x.endswith("srt_wait_router")] == ["srt_wait_router"]


def test_an_nginx_image_without_containers_is_a_warning_naming_the_key() -> None:
    plan = _plan(3, {"nginx_container": "nginx-sqsh"}, "local")
    warned = {w.field: w.message for w in plan.warnings}
    assert "host's nginx" in warned["frontend.nginx_container"] and plan.nginx is not None
    assert "frontend.nginx_container" not in {w.field for w in _plan(3, {"nginx_container": "nginx-sqsh"}).warnings}
    assert _plan(3, {"nginx_container": "nginx-sqsh"}).nginx.container_image == "nginx-sqsh"  # type: ignore[union-attr]


def test_nginx_container_is_resolved_through_the_profiles_aliases(tmp_path: Path) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text("gpus_per_node: 8\ncontainers: {nginx-sqsh: /images/nginx-1.27.4.sqsh}\n")
    plan = _plan(3, {"nginx_container": "nginx-sqsh"}, str(profile))
    assert plan.nginx is not None and plan.nginx.container_image == "/images/nginx-1.27.4.sqsh"
    script = render_script(plan)
    assert "SRT_STEP_IMAGE=/images/nginx-1.27.4.sqsh srt_step nginx nginx 0 " in script
