"""`apply --json`'s submission record, shared by a single apply and a sweep's members."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from srt_tui.core.jobdir.contract import JOB_FILE


def submission_json(sub: Any, prep: Any, tags: list[str] | None) -> dict[str, Any]:
    """`apply --json`: srt-tui's own `job_id`/`job_dir` plus the record srtctl prints for automation
    (`status`, `slurm_job_id`, `job_name`, `output_dir`, `metadata_path`, `config_path`, `tags`)."""
    recipe = prep.job.recipe_path
    return {
        "status": "submitted",
        # the id `wait`/`status`/`cancel` take, whichever launcher runs it (`local-3`): automation's
        # `jq -er .slurm_job_id` works on the demo path too
        "slurm_job_id": sub.job_id,
        "job_name": prep.plan.name,
        "output_dir": str(sub.job_dir),
        "metadata_path": str(sub.job_dir / JOB_FILE),
        "config_path": str(Path(recipe).resolve()) if recipe else None,
        "tags": tags,
        "job_id": sub.job_id,
        "job_dir": str(sub.job_dir),
        "launcher": sub.launcher,
    }
