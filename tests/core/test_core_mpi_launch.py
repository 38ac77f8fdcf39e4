"""Engines that declare LAUNCH_MPI (TRT-LLM) get srtctl's MPI launch: one step per worker across its nodes,
one task per GPU, `srun --mpi` from the profile, matching sbatch tasks; the plan still shows every node."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare_job
from srt_tui.core.errors import SrtError
from srt_tui.core.plan.model import JobPlan
from srt_tui.core.render.script import render_script
from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import Recipe
from tests.core.core_helpers import need


def _recipe(engine: str, gpus: int, nodes: int, frontend: str = "none", workers: int = 1) -> Recipe:
    doc: dict[str, Any] = {
        "name": f"{engine}-{gpus}",
        "model": {"path": "/models/m", "container": "/c/img.sqsh"},
        "engine": {"type": engine},
        "roles": {"agg": {"nodes": nodes, "workers": workers, "gpus": gpus}},
        "frontend": {"type": frontend},
    }
    return Recipe.model_validate(doc)


def _directive(plan: JobPlan, key: str) -> str | None:
    return dict(plan.directives)[key]


@pytest.mark.parametrize(("nodes", "tasks"), [(2, "16"), (3, "24")])
def test_trtllm_worker_is_one_mpi_step_with_a_task_per_gpu(nodes: int, tasks: str) -> None:
    prep = prepare_job(_recipe("trtllm", 8 * nodes, nodes), load_profile("nvidia-h100"))
    leader, *followers = prep.plan.workers
    assert leader.step_nodes == tuple(range(nodes)) and leader.mpi == "pmix"  # srtctl's default plugin
    assert (leader.tasks, leader.tasks_per_node) == (8 * nodes, 8)
    assert leader.command[:2] == ("trtllm-llmapi-launch", "trtllm-serve")
    # the plan still shows each node's GPUs for the worker, each rank group launched by the leader's step
    assert [(f.node_index, f.gpus, f.launched_by) for f in followers] == [
        (n, tuple(range(8)), "agg_0") for n in range(1, nodes)
    ]
    assert (_directive(prep.plan, "ntasks"), _directive(prep.plan, "ntasks-per-node")) == (tasks, "8")
    steps = [line for line in prep.script.splitlines() if "srt_step " in line and not line.lstrip().startswith("#")]
    worker_steps = [s for s in steps if " worker " in s]
    assert len(worker_steps) == 1, worker_steps
    assert worker_steps[0].startswith(
        f"SRT_STEP_MPI=pmix SRT_STEP_NODES={','.join(map(str, range(nodes)))} "
        f"SRT_STEP_TASKS={8 * nodes} SRT_STEP_TPN=8 srt_step agg_0 worker 0 "
    )
    env = dict(leader.env)
    assert env["TRTLLM_EPLB_SHM_NAME"] == "moe_shared_<job_id>_agg_0"


def test_mpi_plugin_and_dynamo_worker_command_come_from_profile_and_frontend() -> None:
    prep = prepare_job(_recipe("trtllm", 16, 2, frontend="dynamo"), load_profile("local"))
    leader = prep.plan.workers[0]
    assert leader.mpi == "pmi2"  # the test cluster's profile: no PMIx library there
    assert leader.command[:4] == ("trtllm-llmapi-launch", "python3", "-m", "dynamo.trtllm")
    assert "--extra-engine-args" in leader.command


def test_per_node_engines_keep_one_task_per_node_and_their_span_rule() -> None:
    prep = prepare_job(_recipe("sglang", 16, 2, frontend="sglang-router"), load_profile("nvidia-h100"))
    assert (_directive(prep.plan, "ntasks"), _directive(prep.plan, "ntasks-per-node")) == ("2", "1")
    assert all(not w.step_nodes and w.launched_by is None for w in prep.plan.workers)
    with pytest.raises(SrtError, match="cannot span nodes"):
        prepare_job(_recipe("mocker", 16, 2), load_profile("local"))


def test_two_mpi_workers_sharing_a_node_each_get_their_mask_and_shm_name() -> None:
    prep = prepare_job(_recipe("trtllm", 4, 1, workers=2, frontend="dynamo"), load_profile("nvidia-h100"))
    a, b = prep.plan.workers
    assert (a.visible_devices, b.visible_devices) == ("0,1,2,3", "4,5,6,7")
    assert (a.tasks, a.tasks_per_node, a.step_nodes) == (4, 4, (0,))
    assert dict(a.env)["TRTLLM_EPLB_SHM_NAME"] != dict(b.env)["TRTLLM_EPLB_SHM_NAME"]


def test_differing_node_masks_are_chosen_by_slurmd_nodename() -> None:
    """srtctl's rule for an MPI step whose nodes need different masks (srtctl.md §C.5): the step picks
    its node's mask at exec time; run the rendered prefix for real on each node name."""
    prep = prepare_job(_recipe("trtllm", 16, 2), load_profile("nvidia-h100"))
    leader, follower = prep.plan.workers
    leader = dataclasses.replace(leader, visible_devices="0,1,2,3", env=(*leader.env, ("CUDA_VISIBLE_DEVICES", "0")))
    follower = dataclasses.replace(follower, visible_devices="4,5,6,7")
    plan = dataclasses.replace(prep.plan, workers=(leader, follower))
    script = render_script(plan)
    step = next(line for line in script.splitlines() if "srt_step agg_0 " in line)
    body = script.splitlines()[script.splitlines().index(step) + 1]
    assert "CUDA_VISIBLE_DEVICES=0 " not in body  # the leader's own mask never reaches the other node
    prefix = body[body.index("bash -c 'for m in") :].split(" trtllm-llmapi-launch")[0]
    for node, want in (("nodeA", "0,1,2,3"), ("nodeB", "4,5,6,7"), ("other", None)):
        setup = f"SRT_NODES=(nodeA nodeB); export SRT_VISIBLE_DEVICES_ENV=CUDA_VISIBLE_DEVICES SLURMD_NODENAME={node}"
        cmd = f"{setup}; {prefix} printenv CUDA_VISIBLE_DEVICES"
        proc = subprocess.run(
            ["bash", "-c", cmd], capture_output=True, text=True, timeout=10, env={"PATH": "/usr/bin:/bin"}
        )
        if want is None:
            assert proc.returncode == 1 and "no GPU mask for node other" in proc.stderr
        else:
            assert proc.stdout.strip() == want, proc.stderr


@pytest.mark.parametrize("profile", ["nvidia-h100", "local"])
def test_mpi_scripts_pass_bash_n_and_shellcheck(tmp_path: Path, profile: str) -> None:
    """The MPI step (and the per-node mask picker) is valid bash and warning-free under shellcheck."""
    exe = shutil.which("shellcheck")
    need(exe is not None, "shellcheck is not installed")
    prep = prepare_job(_recipe("trtllm", 16, 2, frontend="dynamo"), load_profile(profile))
    leader, follower = prep.plan.workers
    masked = dataclasses.replace(prep.plan, workers=(dataclasses.replace(leader, visible_devices="0,1"), follower))
    for name, text in (("plain.sh", prep.script), ("masked.sh", render_script(masked))):
        path = tmp_path / name
        path.write_text(text)
        subprocess.run(["bash", "-n", str(path)], check=True, timeout=30)
        proc = subprocess.run([str(exe), "--norc", "-S", "warning", str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout
