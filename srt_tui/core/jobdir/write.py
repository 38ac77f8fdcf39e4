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
from srt_tui.core.owned import check_dir, private_dir, rename_noreplace, write_private
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
    *,
    replace: bool = False,
) -> Path:
    """Write `files` (and `job.json` from `meta`) into `target` as one rename: directories 0700, files 0600
    (sbatch.sh 0700) whatever the umask, each created anew (never through a link). An existing `target` is
    never replaced (FileExistsError) unless ``replace`` (a saved dry-run written again), and then only when
    it is this user's own directory."""
    target = target.resolve()
    private_dir(target.parent, "output directory", shared_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        os.chmod(tmp, 0o700)
        for name, text in files.items():
            path = tmp / name
            if not path.parent.is_dir():
                private_dir(path.parent, "job directory")
            write_private(path, text, 0o700 if name == "sbatch.sh" else 0o600)
        private_dir(tmp / "logs", "job directory")
        if meta is not None:
            write_private(tmp / JOB_FILE, job_json_text(meta))
        if secrets:
            write_private(tmp / "secrets.env", "".join(f"{k}={_sh_single(v)}\n" for k, v in sorted(secrets.items())))
        old = None
        if replace and os.path.lexists(target):
            check_dir(target, "dry-run directory")
            old = target.with_name(f".{target.name}.old-{os.getpid()}")
            rename_noreplace(target, old)
        rename_noreplace(tmp, target)
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
