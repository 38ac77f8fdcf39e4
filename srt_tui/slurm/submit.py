"""Submit a prepared job: write its directory, hand it to Slurm or the local launcher, index it.

The job directory `<output_dir>/<job_id>/` is complete before the job can start: Slurm jobs are
submitted held, the staged directory is renamed to the job id, then the job is released. A failed
submission keeps the rendered files in `<output_dir>/failed-<timestamp>/` and says what Slurm said.
"""

from __future__ import annotations

import getpass
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.api import Prepared
from ..core.errors import Problem, SrtError
from ..core.jobdir import job_files, job_secrets, write_atomic_dir
from ..core.paths import default_output_dir
from ..core.status import append_event
from .client import SlurmClient
from .errors import SlurmError, SlurmUnavailable
from .jobindex import remember_job, sweep_log_link
from .local import LocalLauncher, next_local_id
from .preflight import check_before_submit


class SubmitError(SrtError):
    """Submission failed; the rendered files were kept."""


@dataclass(frozen=True)
class Submission:
    """A submitted job: its id, its directory and which launcher runs it."""

    job_id: str
    job_dir: Path
    launcher: str
    #: preflight checks that could not run (said, not blocking)
    notes: tuple[str, ...] = ()


def reachable_client(transport: str = "auto") -> tuple[SlurmClient | None, str]:
    """A client whose controller just answered one ping, or None; a one-line reason either way."""
    from .select import get_client

    try:
        client = get_client(transport)  # pings the controller once
    except SlurmUnavailable as exc:
        return None, str(exc)
    return client, f"slurmctld answers ({client.name} transport)"


def slurm_reachable(transport: str = "auto") -> tuple[bool, str]:
    """Whether a Slurm controller answers, and a one-line reason either way."""
    client, why = reachable_client(transport)
    return client is not None, why


def output_base(prep: Prepared, output_dir: Path | None) -> Path:
    """CLI `-o` beats the profile's `output_dir`, which beats `$SRT_TUI_OUTPUT_DIR` / ./outputs."""
    if output_dir is not None:
        return output_dir.expanduser().resolve()
    if prep.job.output_dir:
        return Path(os.path.expandvars(prep.job.output_dir)).expanduser().resolve()
    return default_output_dir()


def _metadata(prep: Prepared, job_id: str, launcher: str, transport: str) -> dict[str, Any]:
    plan = prep.plan
    return {
        "job_id": job_id,
        "name": plan.name,
        "profile": plan.profile,
        "topology": plan.topology,
        "engine": plan.engine,
        "frontend": plan.frontend,
        "nodes": plan.nodes,
        "gpus_per_node": plan.gpus_per_node,
        "launcher": launcher,
        "transport": transport,
        "user": getpass.getuser(),
        "host": socket.gethostname(),
        "submitted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "recipe_path": str(prep.job.recipe_path) if prep.job.recipe_path else None,
        "variant": prep.job.variant,
    }


def submit_local(prep: Prepared, base: Path) -> Submission:
    """Run the job on this machine through the local launcher."""
    base.mkdir(parents=True, exist_ok=True)
    job_id = next_local_id(base)
    job_dir = write_atomic_dir(
        base / job_id,
        job_files(prep.job, prep.plan, prep.script),
        _metadata(prep, job_id, "local", "local"),
        job_secrets(prep.job),
    )
    append_event(job_dir, "submitted", "local launcher")
    LocalLauncher().start(job_id, job_dir)
    remember_job(job_id, job_dir)
    return Submission(job_id, job_dir, "local")


def submit_slurm(
    prep: Prepared, base: Path, transport: str = "auto", client: SlurmClient | None = None, preflight: bool = True
) -> Submission:
    """Preflight (unless told not to), submit held, move the staged directory to `<base>/<job_id>`,
    release (``client``: one that answered)."""
    from .select import get_client

    client = client or get_client(transport)
    notes = tuple(c.message for c in check_before_submit(client, prep)) if preflight else ()
    base.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    staged = write_atomic_dir(
        base / f".staged-{stamp}-{os.getpid()}",
        job_files(prep.job, prep.plan, prep.script),
        _metadata(prep, "", "slurm", client.name),
        job_secrets(prep.job),
    )
    try:
        job_id = client.submit(
            staged / "sbatch.sh",
            base,
            {"SRT_OUTPUT_BASE": str(base)},
            hold=True,
            output=str(base / "%j" / "logs" / "slurm.log"),
        )
    except SlurmError as exc:
        kept = base / f"failed-{stamp}"
        staged.rename(kept)
        raise SubmitError(
            [
                Problem(
                    field="sbatch",
                    message=f"Slurm refused the job: {exc}",
                    hint=f"the rendered files are kept in {kept}",
                )
            ]
        ) from None
    job_dir = base / job_id
    if job_dir.exists():  # Slurm reuses ids (controller state reset, MaxJobId wrap): keep the old directory
        job_dir.rename(base / f"{job_id}.previous-{stamp}")
    staged.rename(job_dir)
    sweep_log_link(job_dir, job_id)
    meta = json.loads((job_dir / "job.json").read_text())
    meta["job_id"] = job_id
    (job_dir / "job.json").write_text(json.dumps(meta, indent=2) + "\n")
    append_event(job_dir, "submitted", f"slurm job {job_id} via {client.name}")
    try:
        client.release(job_id)
    except SlurmError as exc:
        raise SubmitError(
            [
                Problem(
                    field="scontrol release",
                    message=f"job {job_id} stays held: {exc}",
                    hint=f"release it with `scontrol release {job_id}` or cancel it",
                )
            ]
        ) from None
    remember_job(job_id, job_dir)
    return Submission(job_id, job_dir, "slurm", notes)


def submit_prepared(
    prep: Prepared,
    launcher: str = "auto",
    output_dir: Path | None = None,
    transport: str = "auto",
    preflight: bool = True,
) -> Submission:
    """Submit through Slurm when a controller answers (or when asked), else the local launcher."""
    base = output_base(prep, output_dir)
    if launcher == "local":
        return submit_local(prep, base)
    client = None
    if launcher == "auto":
        client, _ = reachable_client(transport)
        if client is None:
            return submit_local(prep, base)
    try:
        return submit_slurm(prep, base, transport, client, preflight)
    except SlurmUnavailable as exc:
        raise SubmitError(
            [Problem(field="slurm", message=str(exc), hint="check SLURM_CONF and munge, or use --launcher local")]
        ) from None
