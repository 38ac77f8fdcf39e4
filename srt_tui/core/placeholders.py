"""Runtime placeholders in plan commands and env: values only the running job knows.

`<ip:nodeK>` is node K's IPv4 on the profile's interface, `<bind>` the address servers bind,
`<logs>` the log directory as the step sees it (`/logs` in a container), `<job_id>` Slurm's id,
`<host:nodeK>` node K's hostname, `<scratch>` a private directory (mktemp -d, 0700) of the job on
node 0, removed when the job ends: never a predictable path in the node's shared /tmp.
"""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(r"<(ip:node(\d+)|host:node(\d+)|bind|logs|job_id|job_dir|scratch)>")


def ip(node: int) -> str:
    """Placeholder for node `node`'s address."""
    return f"<ip:node{node}>"


BIND = "<bind>"
LOGS = "<logs>"
JOB_ID = "<job_id>"
SCRATCH = "<scratch>"


def host(node: int) -> str:
    """Placeholder for node `node`'s hostname."""
    return f"<host:node{node}>"


def url(node: int, port: int, path: str = "") -> str:
    """HTTP URL of a port on a node, resolved at run time."""
    return f"http://{ip(node)}:{port}{path}"


def substitute(text: str, node_ips: list[str], bind: str = "0.0.0.0", logs: str = "/logs", job_id: str = "JOB") -> str:
    """Resolve placeholders with concrete values (used for previews with example addresses)."""

    def repl(match: re.Match[str]) -> str:
        if match.group(2) is not None:
            k = int(match.group(2))
            return node_ips[k] if k < len(node_ips) else match.group(0)
        if match.group(3) is not None:
            return f"node{match.group(3)}"
        name = match.group(1)
        if name == "bind":
            return bind
        if name == "logs":
            return logs
        if name == "job_id":
            return job_id
        if name == "scratch":
            return "SCRATCH"
        return "JOB_DIR"

    return PLACEHOLDER.sub(repl, text)


def with_nodes(text: str, node_ips: list[str], hostnames: list[str]) -> str:
    """``text`` with the node addresses and host names the running job wrote (endpoints.json) in place of their
    placeholders; the others (and a node not known) stay as they are."""

    def repl(match: re.Match[str]) -> str:
        if match.group(2) is not None:
            k = int(match.group(2))
            return node_ips[k] if k < len(node_ips) and node_ips[k] else match.group(0)
        if match.group(3) is not None:
            k = int(match.group(3))
            return hostnames[k] if k < len(hostnames) and hostnames[k] else match.group(0)
        return match.group(0)

    return PLACEHOLDER.sub(repl, text)


def fill_marks(text: str, values: dict[str, str]) -> str:
    """srtctl's `{name}` placeholders filled from `values`; other braces stay as written."""
    for mark, value in values.items():
        text = text.replace(mark, value)
    return text
