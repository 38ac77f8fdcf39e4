"""srtctl's frontend layout (`frontend_stage`): one router on the head node, or nginx there in front of
several routers on the other nodes, and the nginx configuration that spreads requests over them."""

from __future__ import annotations

from dataclasses import dataclass

from srt_tui.core import placeholders as ph
from srt_tui.core.spec.recipe import FrontendSpec

#: routers behind nginx listen here (srtctl's FRONTEND_INTERNAL_PORT); nginx takes the public port
INTERNAL_PORT = 8180
#: srtctl's request body limit and upstream keepalive pool
BODY_LIMIT = "45m"
UPSTREAM_KEEPALIVE = 512


@dataclass(frozen=True)
class FrontendLayout:
    """Where the routers run and on which port; nginx's node when it fronts them (None: no nginx)."""

    router_nodes: tuple[int, ...]
    router_port: int
    nginx_node: int | None

    @property
    def uses_nginx(self) -> bool:
        """Several routers behind nginx on the head node."""
        return self.nginx_node is not None


def frontend_layout(fe: FrontendSpec, head: int, worker_nodes: int, has_router: bool) -> FrontendLayout:
    """One router on the head node (the first worker node) when the workers use one node or
    `enable_multiple_frontends` is off; else nginx on the head and `min(num_additional_frontends + 1,
    other worker nodes)` routers on the worker nodes after it, each on INTERNAL_PORT."""
    if not has_router or worker_nodes <= 1 or not fe.enable_multiple_frontends:
        return FrontendLayout((head,), fe.port, None)
    count = min(fe.num_additional_frontends + 1, worker_nodes - 1)
    return FrontendLayout(tuple(range(head + 1, head + 1 + count)), INTERNAL_PORT, head)


def nginx_conf(fe: FrontendSpec, layout: FrontendLayout, raise_ulimit: bool) -> str:
    """nginx.conf in srtctl's shape: round-robin (or consistent hash on the affinity header) over the
    routers, 45 MB bodies, upstream keepalive, 24 h proxy timeouts. Every path nginx writes (pid, logs,
    temp files) is under the job's log directory, so it runs unprivileged and on hosts without containers.
    Router addresses are placeholders the launch script fills in once the nodes are resolved."""
    prefix = f"{ph.LOGS}/nginx"
    # max_fails=0: a router that refused a connection (still starting, say) is never taken out of the
    # rotation for fail_timeout; nginx just passes that request to the next router
    servers = "".join(f"        server {ph.ip(n)}:{layout.router_port} max_fails=0;\n" for n in layout.router_nodes)
    affinity_map = balance = ""
    if fe.nginx_session_affinity:
        header = "$http_" + fe.nginx_session_affinity_header.lower().replace("-", "_")
        affinity_map = (
            f"    # requests without the session header keep spreading (a fresh key per request)\n"
            f"    map {header} $srt_affinity_key {{\n"
            f'        "" $request_id;\n'
            f"        default {header};\n"
            f"    }}\n"
        )
        balance = "        hash $srt_affinity_key consistent;\n"
    temp = "".join(
        f"    {kind}_temp_path {prefix}/{kind}_temp;\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        "# nginx in front of the job's routers (srt-tui, after srtctl's nginx.conf.j2)\n"
        "worker_processes auto;\n"
        + ("worker_rlimit_nofile 1048576;\n" if raise_ulimit else "")
        + f"pid {prefix}/nginx.pid;\n"
        f"error_log {prefix}/error.log warn;\n"
        "\n"
        "events {\n"
        f"    worker_connections {1048576 if raise_ulimit else 65536};\n"
        "    multi_accept on;\n"
        "    use epoll;\n"
        "}\n"
        "\n"
        "http {\n"
        "    access_log off;\n"
        f"    client_max_body_size {BODY_LIMIT};\n"
        f"    keepalive_timeout {fe.nginx_keepalive_timeout};\n"
        f"{temp}"
        f"{affinity_map}"
        "    upstream srt_routers {\n"
        f"{balance}"
        f"{servers}"
        f"        keepalive {UPSTREAM_KEEPALIVE};\n"
        f"        keepalive_timeout {fe.nginx_keepalive_timeout};\n"
        "    }\n"
        "\n"
        "    server {\n"
        f"        listen {ph.BIND}:{fe.port};  # the head node's address under the local launcher\n"
        "        location / {\n"
        "            proxy_pass http://srt_routers;\n"
        "            proxy_http_version 1.1;\n"
        '            proxy_set_header Connection "";\n'
        "            proxy_buffering off;\n"
        "            proxy_read_timeout 24h;\n"
        "            proxy_send_timeout 24h;\n"
        "        }\n"
        "    }\n"
        "}\n"
    )


def nginx_argv(raise_ulimit: bool, in_container: bool) -> tuple[str, ...]:
    """nginx in the foreground with the job's config.

    In a container, srtctl's command (root in the container through `--container-remap-root`, see
    NGINX_SRUN_OPTIONS); on a host, a writable prefix under the log directory so it runs unprivileged.
    """
    if in_container:
        run = f"nginx -c {ph.LOGS}/nginx.conf -g 'daemon off;'"
        return ("bash", "-c", f"ulimit -n 1048576 && {run}" if raise_ulimit else run)
    argv = (
        "nginx",
        "-p",
        f"{ph.LOGS}/nginx/",
        "-e",
        f"{ph.LOGS}/nginx/error.log",
        "-c",
        f"{ph.LOGS}/nginx.conf",
        "-g",
        "daemon off;",
    )
    if not raise_ulimit:
        return argv
    return ("bash", "-c", 'ulimit -n 1048576 && exec "$@"', "srt-nginx", *argv)


#: srtctl runs nginx's container as root (its srun options: this alone, not the recipe's)
NGINX_SRUN_OPTIONS: tuple[tuple[str, str | None], ...] = (("container-remap-root", None),)
