"""Where srt-tui launches a process differently from srtctl on purpose, and why (DESIGN principle 9).

Everything else a process runs with is srtctl's: program, flags, environment, srun options, container,
mounts. Each process names the deviations that touch it (`ProcessPlan.differs_from_srtctl`); `dry-run`
shows them beside the process and plan.json lists them, and the README's table is this one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Deviation:
    """One deliberate difference: what differs (one line) and why srt-tui needs it."""

    what: str
    why: str


DEVIATIONS: dict[str, Deviation] = {
    "health-gate": Deviation(
        'DYN_SYSTEM_ENABLED=true and DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS=["generate"] on Dynamo workers',
        "srt-tui's health gate and the Monitor read each worker's /health on its system port; without these "
        "ai-dynamo 1.6.1 keeps it 503 after the worker serves (srtctl reads only the frontend's instance list)",
    ),
    "subset-unset": Deviation(
        "a worker on a GPU subset unsets the profile's subset_unset_env (GPU_DEVICE_ORDINAL, ROCR/HIP_VISIBLE_DEVICES)",
        "Slurm sets them to the whole allocation on every step; the subset goes in the profile's visibility "
        "variable alone, so a CUDA engine sees the same GPUs as under srtctl and a ROCm one is not given all",
    ),
    "read-only-mounts": Deviation(
        "the model directory (and srtctl's configs/ and wheelhouse) are mounted read-only",
        "no step writes them; read-only, a stray write cannot change the model other jobs run",
    ),
    "router-metrics": Deviation(
        "sglang-router gets --prometheus-host/--prometheus-port",
        "the Monitor reads the router's request counters from its own metrics port",
    ),
    "mocker-model-name": Deviation(
        "dynamo.mocker gets --model-name <the job's served name>",
        "without it the mocker names the model after its path, and the benchmark and the Monitor ask for the "
        "served name srtctl's own benchmark uses",
    ),
    "recipe-port": Deviation(
        "where a recipe sets a worker's HTTP or bootstrap port itself, the router is given that port",
        "the recipe's flag comes last, so the worker listens there; srtctl still gives the router the port it "
        "allocated, where nothing listens (the prefill bootstrap of disaggregated requests fails)",
    ),
    "model-not-staged": Deviation(
        "with model.stage_dir the workers still read the model from the shared /model (no node-local copy, no "
        "mount of the stage directory)",
        "srt-tui has no staging step yet; the weights are the same, only loading is slower (a warning says so)",
    ),
    "router-srun-options": Deviation(
        "the recipe's srun_options reach the routers too",
        "the AMD fork's rule (DESIGN principle 6): clusters whose steps need an option need it on every step",
    ),
}
