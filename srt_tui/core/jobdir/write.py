"""Write a job directory atomically: all files appear together or not at all."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from srt_tui.core.benchmark import support_files
from srt_tui.core.jobdir.benchmark_metadata import SRTCTL_METADATA, srtctl_metadata
from srt_tui.core.jobdir.contract import JOB_FILE, PLAN_FILE, JobMeta, job_json_text
from srt_tui.core.plan.build import secret_values
from srt_tui.core.plan.model import JobPlan
from srt_tui.core.spec.resolved import ResolvedJob
from srt_tui.core.spec.secrets import MASK
from srt_tui.core.spec.yamlio import dump_yaml


def job_files(job: ResolvedJob, plan: JobPlan, script: str) -> dict[str, str]:
    """The rendered files of a job: sbatch.sh, plan.json, resolved recipe.yaml and profile.yaml, what the
    benchmark step runs (srt-tui's sa-bench client under logs/, which every step sees), and the job facts
    srtctl's result tools look up in logs/."""
    recipe = _masked(job.recipe.to_yaml_dict(), job.secret_names)
    profile = _masked(job.profile.model_dump(mode="json", exclude_unset=True), job.secret_names)
    return {
        "sbatch.sh": script,
        PLAN_FILE: plan.to_json_text(),
        "recipe.yaml": dump_yaml(recipe),
        "profile.yaml": dump_yaml(profile),
        **support_files(job.recipe.benchmark),
        SRTCTL_METADATA: json.dumps(srtctl_metadata(plan, job.recipe.benchmark), indent=2) + "\n",
    }


def _masked(data: Any, names: frozenset[str]) -> Any:
    """Copy of `data` with every secret's value masked, at any depth (role, frontend, benchmark env …)."""
    if isinstance(data, dict):
        return {
            k: MASK if str(k) in names and not isinstance(v, (dict, list)) else _masked(v, names)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_masked(v, names) for v in data]
    return data


def write_atomic_dir(
    target: Path,
    files: dict[str, str],
    meta: JobMeta | None = None,
    secrets: dict[str, str] | None = None,
) -> Path:
    """Write `files` (and `job.json` from `meta`) into `target`, replacing it as one rename."""
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name, text in files.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_text(text, encoding="utf-8")
        (tmp / "sbatch.sh").chmod(0o755)
        (tmp / "logs").mkdir(exist_ok=True)
        if meta is not None:
            (tmp / JOB_FILE).write_text(job_json_text(meta), encoding="utf-8")
        if secrets:
            path = tmp / "secrets.env"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                for k, v in sorted(secrets.items()):
                    fh.write(f"{k}={_sh_single(v)}\n")
        old = None
        if target.exists():
            old = target.with_name(f".{target.name}.old-{os.getpid()}")
            target.rename(old)
        tmp.rename(target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _sh_single(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def job_secrets(job: ResolvedJob) -> dict[str, str]:
    """Secret values to write into the job's 0600 secrets file."""
    return secret_values(job)
