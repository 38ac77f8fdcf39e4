"""Recorded probe results (an AMD-style GRES-only cluster) and an app that uses them in Setup mode."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from srt_tui.setup.findings import Finding
from srt_tui.setup.node_script import BEGIN, END, parse_node_output
from srt_tui.setup.probes import STEPS, ProbeOptions, ProbeRun, ProbeRunner, Progress
from srt_tui.slurm.client import NodeInfo, PartitionInfo
from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.context import ContextHub
from srt_tui.tui.setup.screen import SetupScreen
from tests.setup.standins import AMD_LIST, AMD_STATIC
from tests.tui.tui_helpers import FIXED_NOW

NODE_DOC = {
    "node": "node2",
    "slurmd_nodename": "node2",
    "tools": [
        {"tool": "nvidia-smi", "found": False, "runs": []},
        {
            "tool": "amd-smi",
            "found": True,
            "runs": [
                {"rc": 0, "out": json.dumps(AMD_STATIC), "err": ""},
                {"rc": 0, "out": json.dumps(AMD_LIST), "err": ""},
            ],
        },
        {"tool": "rocm-smi", "found": False, "runs": []},
    ],
    "devices": {"/dev/kfd": False, "/dev/dri": False},
    "ip": {
        "rc": 0,
        "out": json.dumps(
            [
                {"ifname": "lo", "flags": ["LOOPBACK", "UP"], "addr_info": [{"family": "inet", "local": "127.0.0.1"}]},
                {"ifname": "docker0", "flags": ["UP"], "addr_info": [{"family": "inet", "local": "172.17.0.1"}]},
                {"ifname": "eth0", "flags": ["UP"], "addr_info": [{"family": "inet", "local": "10.254.0.12"}]},
            ]
        ),
    },
    "sys_net": "docker0 eth0 lo",
    "srun": True,
    "pyxis": False,
    "paths": {"/shared/models": {"exists": True, "dir": True, "readable": True}},
}


def recorded_run() -> ProbeRun:
    """What the probes saw on a 3-node GRES-only cluster with amd-smi on the nodes."""
    report = parse_node_output(f"{BEGIN}\n{json.dumps(NODE_DOC)}\n{END}\n")
    nodes = [
        NodeInfo(f"node{i}", "idle", cpus=16, memory_mb=256000, gres="gpu:8", gpus=8, partitions=("gpu",))
        for i in (1, 2, 3)
    ]
    evidence = (
        "sbatch --test-only rejected --gpus-per-node=1 (sbatch: error: Invalid generic resource (gres) "
        "specification) and accepted --gres=gpu:1"
    )
    return ProbeRun(
        cluster_name="local",
        reachable=True,
        partitions=[PartitionInfo("gpu", "UP", ("node1", "node2", "node3"), 3, 48, True, None)],
        nodes=nodes,
        partition="gpu",
        gpus_per_node_directive=False,
        gres_directive=True,
        segment_directive=False,
        directive_evidence=evidence,
        account=None,
        node=report,
        findings=[
            Finding.good("slurm", "slurm-wlm 22.05.8, cluster local", "sinfo --version"),
            Finding.good("directive", "GRES only (--gres=gpu:N)", evidence),
            Finding.note("account", "no default account found", "sacctmgr: accounting disabled", fix="enter one"),
            Finding.good("gpu tool", "amd-smi: 8 × AMD Instinct MI300X", "answered on node2"),
        ],
    )


def recorded_runner(options: ProbeOptions, progress: Progress) -> ProbeRun:
    """Replays the recorded run with progress for every step."""
    details = {
        "slurm": ("ok", "slurm-wlm 22.05.8, cluster local"),
        "partitions": ("ok", "gpu (3 nodes, gpu:8)"),
        "directive": ("ok", "GRES only (--gres=gpu:N)"),
        "account": ("info", "no default account found"),
        "node": ("ok", "amd-smi: 8 × AMD Instinct MI300X"),
    }
    for step, _label in STEPS:
        progress(step, "running", "")
        progress(step, *details[step])
    return recorded_run()


def setup_app(
    profiles_dir: Path | None = None,
    runner: ProbeRunner = recorded_runner,
    slurm_probe: Callable[[], tuple[bool, str]] | None = None,
) -> SrtTuiApp:
    """The real app in Setup mode, with the recorded runner (or ``runner``) injected; the header's Slurm
    check is off unless ``slurm_probe`` answers it."""

    def _setup(hub: ContextHub) -> SetupScreen:
        return SetupScreen(hub, runner=runner, profiles_dir=profiles_dir)

    class SetupApp(SrtTuiApp):
        MODE_SCREENS = {**SrtTuiApp.MODE_SCREENS, "setup": _setup}
        DEFAULT_MODE = "setup"

    app = SetupApp(
        clock=lambda: FIXED_NOW, check_slurm=slurm_probe is not None, slurm_probe=slurm_probe, cursor_blink=False
    )
    app.animation_level = "none"
    return app
