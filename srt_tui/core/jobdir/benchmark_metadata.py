"""The job facts srtctl's result tools look up beside the logs, in srtctl's names.

srtctl's ``rollup.py`` takes the config name, GPU counts and ISL/OSL of a run from the first JSON in the
log directory (then its parent) that has ``job_id``, ``resources`` or ``benchmark``: srt-tui writes
``logs/srtctl-metadata.json`` so that is the one it finds, not endpoints.json (which has a ``job_id``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.plan.model import JobPlan

SRTCTL_METADATA = "logs/srtctl-metadata.json"


def srtctl_metadata(plan: JobPlan, bench: BenchmarkSpec) -> dict[str, Any]:
    """``job_name``, ``backend_type``, ``resources`` and ``benchmark`` as srtctl's submit metadata names them."""
    resources: dict[str, Any] = {"gpus_per_node": plan.gpus_per_node}
    for role in ("prefill", "decode", "agg"):
        ranks = [w for w in plan.workers if w.role == role]
        leaders = [w for w in ranks if w.node_rank == 0]
        if not leaders:
            continue
        resources[f"{role}_nodes"] = len({w.node_index for w in ranks})
        resources[f"{role}_workers"] = len(leaders)
        resources[f"gpus_per_{role}"] = sum(len(w.gpus) for w in ranks) // len(leaders)
    return {
        "job_name": plan.name,
        "backend_type": plan.engine,
        "resources": resources,
        "benchmark": {"type": bench.type, "isl": bench.isl, "osl": bench.osl},
    }
