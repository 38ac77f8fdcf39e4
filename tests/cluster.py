"""The real local Slurm test cluster for tests: start it once per session, or fail (CI) / skip (elsewhere).

``ensure_local_slurm(nodes=3)`` runs ``scripts/local-slurm/start.sh`` (idempotent: 0.2 s when the
cluster is already up with the same options, ~3.5 s from stopped), exports ``SLURM_CONF`` into
``os.environ`` and returns the node names and addresses. When the cluster cannot be started it calls
``pytest.fail`` under ``CI=true`` (nothing may be skipped there) and ``pytest.skip`` otherwise.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts" / "local-slurm"
START_TIMEOUT = 600.0  # a fresh CI machine installs slurm + munge + socat first


@dataclass(frozen=True)
class ClusterNode:
    """One Slurm node of the test cluster: name, address (its own eth0 in netns mode), slurmd port."""

    name: str
    address: str
    port: int


@dataclass(frozen=True)
class ClusterInfo:
    """What tests need to know about the running test cluster."""

    dir: Path
    conf: Path
    nodes: tuple[ClusterNode, ...]
    net: str
    host_address: str | None
    partition: str = "gpu"

    @property
    def node_names(self) -> list[str]:
        """Node names in order (node1, node2, ...)."""
        return [node.name for node in self.nodes]

    def address_of(self, name: str) -> str:
        """The address of a node by name."""
        return next(node.address for node in self.nodes if node.name == name)

    def host_link(self, action: str) -> str:
        """Run ``host-link.sh up|down|status`` (netns mode); returns its stdout ("up"/"down")."""
        proc = subprocess.run(
            ["bash", str(SCRIPTS / "host-link.sh"), action],
            env={**os.environ, "LOCAL_SLURM_DIR": str(self.dir)},
            capture_output=True,
            text=True,
            timeout=30,
        )
        if action != "status" and proc.returncode != 0:
            raise RuntimeError(f"host-link.sh {action} failed: {proc.stderr.strip()}")
        return proc.stdout.strip()


_STARTED: dict[tuple[int, str], ClusterInfo | str] = {}


def _unavailable(reason: str) -> None:
    """Fail under CI=true, skip elsewhere."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the local Slurm cluster is unavailable: {reason}", pytrace=False)
    pytest.skip(f"local Slurm cluster unavailable: {reason}")


def _read_info(cluster_dir: Path, net: str) -> ClusterInfo:
    """ClusterInfo from the files start.sh writes (nodes.txt, host-link, etc/slurm.conf)."""
    nodes: list[ClusterNode] = []
    nodes_txt = cluster_dir / "nodes.txt"
    if nodes_txt.exists():
        for line in nodes_txt.read_text().splitlines():
            name, address, port = line.split()
            nodes.append(ClusterNode(name, address, int(port)))
    else:  # single-node mode
        proc = subprocess.run(["hostname", "-s"], capture_output=True, text=True, check=True)
        nodes.append(ClusterNode(proc.stdout.strip(), "127.0.0.1", 6818))
    host_link = cluster_dir / "host-link"
    host_address = host_link.read_text().split()[1] if host_link.exists() else None
    return ClusterInfo(
        dir=cluster_dir,
        conf=cluster_dir / "etc" / "slurm.conf",
        nodes=tuple(nodes),
        net=net if len(nodes) > 1 else "single",
        host_address=host_address,
    )


def ensure_local_slurm(nodes: int = 3, net: str = "netns") -> ClusterInfo:
    """Start (or reuse) the local cluster with ``nodes`` nodes; export SLURM_CONF; fail/skip if impossible."""
    key = (nodes, net)
    cached = _STARTED.get(key)
    if cached is None:
        cached = _start(nodes, net)
        _STARTED[key] = cached
    if isinstance(cached, str):
        _unavailable(cached)
        raise AssertionError("unreachable")  # pytest.skip/fail raise
    os.environ["SLURM_CONF"] = str(cached.conf)
    os.environ.pop("SLURM_JWT", None)
    return cached


def _start(nodes: int, net: str) -> ClusterInfo | str:
    """Run start.sh; a ClusterInfo, or the reason it failed."""
    if os.geteuid() != 0:
        return "scripts/local-slurm/start.sh needs root (slurmd runs as root)"
    cluster_dir = Path(os.environ.get("LOCAL_SLURM_DIR", "/tmp/local-slurm"))
    env = {
        **os.environ,
        "LOCAL_SLURM_DIR": str(cluster_dir),
        "LOCAL_SLURM_NODES": str(nodes),
        "LOCAL_SLURM_NET": net,
    }
    try:
        proc = subprocess.run(
            ["bash", str(SCRIPTS / "start.sh")],
            env=env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"start.sh did not finish: {exc}"
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-40:])
        return f"start.sh exited {proc.returncode}:\n{tail}"
    return _read_info(cluster_dir, net)
