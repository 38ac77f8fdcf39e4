"""What an operator on a login node does when Slurm cannot be used: one wording for every transport and face (the
CLI's errors, doctor and Setup's findings, the TUI's header and Submit step).

The fixes are a login node's: set SLURM_CONF or load the site's Slurm module, check munge, then ask the cluster's
admins. srt-tui's own test cluster is named only where the environment says it is the one in use
(`LOCAL_SLURM_DIR`, which its scripts read: set by whoever runs it).
"""

from __future__ import annotations

from collections.abc import Mapping

#: how a login node usually puts Slurm's commands on PATH and sets SLURM_CONF
MODULE = "load the site's Slurm module (`module load slurm`)"
#: the environment variable srt-tui's test cluster (scripts/local-slurm) is started with
TEST_CLUSTER_ENV = "LOCAL_SLURM_DIR"

#: what Slurm says when it found no configuration at all (no slurm.conf, no configless controller)
_NO_CONFIG = ("could not establish a configuration source", "unable to process configuration file", "s_p_parse_file")


def where_slurm_looks(env: Mapping[str, str]) -> str:
    """Where Slurm's commands read the cluster from: `SLURM_CONF=PATH`, or what they do without it."""
    conf = env.get("SLURM_CONF")
    if conf:
        return f"SLURM_CONF={conf}"
    return "SLURM_CONF is not set: Slurm reads /etc/slurm/slurm.conf, else asks DNS for a configless controller"


def conf_missing(conf: str, env: Mapping[str, str]) -> str:
    """SLURM_CONF names no file: what is wrong and how to fix it."""
    return (
        f"SLURM_CONF={conf} names no file: point SLURM_CONF at this cluster's slurm.conf, unset it (Slurm then reads "
        f"/etc/slurm/slurm.conf), or {MODULE}, which sets it{_test_cluster(env)}"
    )


def commands_missing(command: str) -> str:
    """A Slurm command is not on PATH."""
    return f"{command} not found: Slurm's commands are not on PATH here; {MODULE} or add Slurm's bin directory to PATH"


def unreachable_fix(said: str, env: Mapping[str, str]) -> str:
    """What to check when no controller answers, from what Slurm said: its configuration, munge, or the controller
    itself (which only the cluster's admins can fix)."""
    lowered = said.lower()
    if any(words in lowered for words in _NO_CONFIG):
        return (
            f"Slurm finds no configuration ({where_slurm_looks(env)}): set SLURM_CONF to this cluster's slurm.conf "
            f"or {MODULE}{_test_cluster(env)}"
        )
    if "munge" in lowered:
        return (
            "munge, which signs every request to Slurm, does not work here: check `munge -n | unmunge`, and ask the "
            "cluster's admins when munged is not running on this node"
        )
    conf = env.get("SLURM_CONF")
    check = (
        f"check that SLURM_CONF={conf} is this cluster's slurm.conf"
        if conf
        else "SLURM_CONF is not set, so the default configuration (/etc/slurm/slurm.conf, or DNS for a configless "
        f"cluster) named the controller: set SLURM_CONF to this cluster's slurm.conf or {MODULE}"
    )
    return (
        f"{check}, and that munge works here (`munge -n | unmunge`); if both are right, the controller does not "
        f"answer this node: ask the cluster's admins{_test_cluster(env)}"
    )


def _test_cluster(env: Mapping[str, str]) -> str:
    """A word on srt-tui's test cluster, only when the environment says it is the one in use."""
    folder = env.get(TEST_CLUSTER_ENV)
    if not folder:
        return ""
    return f" (srt-tui's test cluster in {TEST_CLUSTER_ENV}={folder}: `source {folder}/env.sh` sets SLURM_CONF)"
