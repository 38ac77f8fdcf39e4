"""Submit a prepared job: write its directory, hand it to Slurm or the local launcher, index it.

The job directory `<output_dir>/<job_id>/` is complete before the job can start: Slurm jobs are
submitted held, the staged directory is renamed to the job id, then the job is released. A failed
submission keeps the rendered files in `<output_dir>/failed-<timestamp>/` and says what Slurm said.
"""

from __future__ import annotations

import contextlib
import errno
import getpass
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from srt_tui.core.api import Prepared
from srt_tui.core.errors import Face, Problem, SrtError
from srt_tui.core.jobdir.contract import JobMeta, update_job_meta
from srt_tui.core.jobdir.events import append_event
from srt_tui.core.jobdir.write import job_files, job_secrets, write_atomic_dir
from srt_tui.core.owned import (
    UnsafePath,
    check_ancestors,
    check_dir,
    check_file,
    private_dir,
    rename_noreplace,
    require_job_id,
)
from srt_tui.core.paths import default_output_dir
from srt_tui.core.spec.profile import Profile
from srt_tui.core.spec.slurm_values import mount_problem
from srt_tui.slurm import orphans
from srt_tui.slurm.answers import reachable_client
from srt_tui.slurm.client import SlurmClient
from srt_tui.slurm.errors import SlurmError, SlurmUnavailable
from srt_tui.slurm.local import LocalLauncher, claim_local_id
from srt_tui.slurm.preflight import check_before_submit, host_checks, refuse_failed
from srt_tui.state.jobindex import remember_job, sweep_log_link


class SubmitError(SrtError):
    """Submission failed; the rendered files were kept."""


class SlurmRefused(SubmitError):
    """sbatch refused the job (an unknown partition, a limit): Slurm failed, exit 3 as `--help` says."""

    exit_code = 3


@dataclass(frozen=True)
class Submission:
    """A submitted job: its id, its directory and which launcher runs it."""

    job_id: str
    job_dir: Path
    launcher: str
    #: preflight checks that could not run (said, not blocking)
    notes: tuple[str, ...] = ()
    #: the Slurm client that submitted it (its controller answered): a sweep's next member submits through it
    client: SlurmClient | None = field(default=None, compare=False, repr=False)
    #: how the job reached Slurm when not through the chosen transport (pyslurm -> sbatch), else ''
    submit_note: str = ""


def output_base(prep: Prepared, output_dir: Path | None) -> Path:
    """CLI `-o` beats the profile's `output_dir`, which beats `$SRT_TUI_OUTPUT_DIR` / ./outputs."""
    if output_dir is not None:
        return output_dir.expanduser().resolve()
    if prep.job.output_dir:
        return Path(os.path.expandvars(prep.job.output_dir)).expanduser().resolve()
    return default_output_dir()


def _metadata(prep: Prepared, job_id: str, launcher: str, transport: str) -> JobMeta:
    """The job's `job.json`; the recipe path absolute, so it still names the file from any directory."""
    plan = prep.plan
    recipe = prep.job.recipe_path
    return JobMeta(
        job_id=job_id,
        name=plan.name,
        profile=plan.profile,
        topology=plan.topology,
        engine=plan.engine,
        frontend=plan.frontend,
        nodes=plan.nodes,
        gpus_per_node=plan.gpus_per_node,
        launcher=launcher,
        transport=transport,
        user=getpass.getuser(),
        host=socket.gethostname(),
        submitted_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        recipe_path=str(Path(recipe).expanduser().resolve()) if recipe else None,
        variant=prep.job.variant,
    )


def _write_job_dir(target: Path, prep: Prepared, meta: JobMeta) -> Path:
    """The job directory, or a SubmitError naming the output directory when it cannot be written."""
    try:
        return write_atomic_dir(target, job_files(prep.job, prep.plan, prep.script), meta, job_secrets(prep.job))
    except FileExistsError:
        raise
    except OSError as exc:
        raise SubmitError(
            [
                Problem(
                    field="output directory",
                    message=f"cannot write {target.parent}: {exc.strerror or exc}; nothing was submitted",
                    hint="use -o with a writable directory that has free space, or fix the profile's output_dir",
                )
            ]
        ) from None


def submit_local(prep: Prepared, base: Path) -> Submission:
    """Run the job on this machine through the local launcher: an id claimed for this user alone, a new
    directory that replaces nothing (a name taken meanwhile, by anyone, moves on to the next id)."""
    for _ in range(100):
        job_id = claim_local_id(base)
        try:
            job_dir = _write_job_dir(base / job_id, prep, _metadata(prep, job_id, "local", "local"))
            break
        except FileExistsError:
            continue
    else:
        raise SubmitError([Problem(field="output directory", message=f"{base}: no free local-N name after 100 tries")])
    append_event(job_dir, "submitted", "local launcher")
    sweep_log_link(job_dir, job_id, "launch.log")  # automation's `wait --log-file …/sweep_<id>.log`
    LocalLauncher().start(job_id, job_dir)
    remember_job(job_id, job_dir)
    return Submission(job_id, job_dir, "local")


def _set_job_id(job_dir: Path, job_id: str) -> None:
    """Record the Slurm id in job.json first thing after sbatch (written whole, then renamed)."""
    update_job_meta(job_dir, job_id=job_id)


def _keep_failed(staged: Path, base: Path, stamp: str) -> Path:
    """Move a refused job's files to a new ``failed-<stamp>-<random>`` directory (0700, never shared)."""
    kept = Path(tempfile.mkdtemp(prefix=f"failed-{stamp}-", dir=base))
    staged.rename(kept)  # onto the empty directory mkdtemp made: atomic, and the name is ours alone
    return kept


def _move_into_place(staged: Path, base: Path, job_id: str, stamp: str) -> Path:
    """``staged`` becomes ``base/job_id``; an existing directory of that name is never replaced: this user's
    is kept aside (Slurm reuses ids after a controller reset or MaxJobId wrap), anyone else's stays and the
    job keeps its staged name (indexed all the same)."""
    job_dir = base / require_job_id(job_id, "sbatch")
    if os.path.lexists(job_dir):
        try:
            check_dir(job_dir, "job directory")
            rename_noreplace(job_dir, base / f"{job_id}.previous-{stamp}")
        except (UnsafePath, OSError):
            return staged
    rename_noreplace(staged, job_dir)
    return job_dir


def _abandon(client: Any, job_id: str, job_dir: Path, cause: BaseException) -> BaseException:
    """A submission failed between sbatch --hold and the end of apply: cancel the job, or keep it tracked."""
    reason = f"signal {cause.signum}" if isinstance(cause, SubmitInterrupted) else f"{type(cause).__name__}: {cause}"
    if job_dir.name.startswith(".staged-"):  # failed before the move: still give it its id's name
        with contextlib.suppress(OSError):
            job_dir = _move_into_place(job_dir, job_dir.parent, job_id, time.strftime("%Y%m%d-%H%M%S"))
    remember_job(job_id, job_dir)  # status and cancel find it whatever happens next
    try:
        client.cancel(job_id)
        outcome = f"Slurm job {job_id} was cancelled; its files are in {job_dir}"
        with contextlib.suppress(OSError):
            append_event(job_dir, "cancelled", f"submission interrupted ({reason}); the held job was cancelled")
    except Exception as exc:  # noqa: BLE001 - the job must stay findable whatever went wrong
        outcome = f"Slurm job {job_id} may still be held ({exc}); cancel it with `srt-tui cancel {job_id}`"
    if isinstance(cause, SubmitInterrupted):
        return SubmitInterrupted(cause.signum, outcome)
    return SubmitError([Problem(field="submit", message=f"submission failed ({reason}): {outcome}")])


class SubmitInterrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP arrived while a job was half submitted; says what became of the job."""

    def __init__(self, signum: int, outcome: str = "") -> None:
        super().__init__(outcome or f"signal {signum}")
        self.signum = signum


class _DeferredSignals:
    """SIGINT/SIGTERM/SIGHUP are noted, not acted on, while a submission is half done, so the job id is
    always recorded before apply stops. Only the main thread can own signals (the TUI submits from a
    worker: a crash there is found later by `recover_interrupted`)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.signum: int | None = None
        self._old: dict[int, Any] = {}

    def __enter__(self) -> _DeferredSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self._old[sig] = signal.signal(sig, self._note)
        return self

    def _note(self, signum: int, frame: Any) -> None:
        if self.signum is None:
            print("srt-tui: stopping: finishing the submission step, then cancelling the job…", file=sys.stderr)
        self.signum = signum

    def check(self) -> None:
        """Act on a signal that arrived since the last step."""
        if self.signum is not None:
            raise SubmitInterrupted(self.signum)

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


def submit_slurm(
    prep: Prepared,
    base: Path,
    transport: str = "auto",
    client: SlurmClient | None = None,
    preflight: bool = True,
    face: Face = "cli",
) -> Submission:
    """Preflight (unless told not to), make the output directory `base`, submit held, record the id, move the
    staged directory to `<base>/<job_id>`, index it, release (``client``: one whose controller already answered).

    Between sbatch and the end, any failure or SIGINT/SIGTERM/SIGHUP cancels the held job (or, when
    Slurm cannot cancel it, leaves it indexed so status and cancel find it).
    """
    from srt_tui.slurm.select import get_client

    client = client or get_client(transport)
    notes = tuple(c.message for c in check_before_submit(client, prep, face)) if preflight else ()
    _checked_base(base)  # only now: a job the preflight refused leaves no directory behind
    stamp = time.strftime("%Y%m%d-%H%M%S")
    unique = f"{stamp}-{uuid.uuid4().hex[:6]}-{os.getpid()}"  # unique; the pid last (recover_interrupted reads it)
    with _DeferredSignals() as signals:
        staged = _write_job_dir(base / f".staged-{unique}", prep, _metadata(prep, "", "slurm", client.name))
        if signals.signum is not None:  # stopped before anything reached Slurm
            shutil.rmtree(staged, ignore_errors=True)
            raise SubmitInterrupted(signals.signum, "nothing was submitted")
        check_dir(staged, "staged job directory")  # what sbatch reads is still ours alone
        check_file(staged / "sbatch.sh", "launch script")
        record = orphans.begin(base, staged)  # a kill from here on leaves a held job the next command finds
        try:
            job_id = client.submit(
                staged / "sbatch.sh",
                base,
                {"SRT_OUTPUT_BASE": str(base)},
                hold=True,
                output=str(base / "%j" / "logs" / "slurm.log"),
                directives=prep.plan.directives,
            )
        except SlurmError as exc:
            kept = _keep_failed(staged, base, stamp)
            if signals.signum is not None:  # Ctrl-C reached sbatch too: it stopped before submitting
                orphans.end(record)
                raise SubmitInterrupted(signals.signum, f"nothing was submitted; the files are in {kept}") from None
            orphans.end(record)
            raise SlurmRefused(
                [
                    Problem(
                        field="sbatch",
                        message=f"Slurm refused the job: {exc}",
                        hint=f"the rendered files are kept in {kept}",
                    )
                ]
            ) from None
        job_dir = staged
        submit_note = getattr(client, "submit_note", "")
        try:
            _set_job_id(staged, job_id)
            if submit_note:  # pyslurm sent this job through sbatch: job.json says which transport ran it
                update_job_meta(staged, transport="cli")
            job_dir = _move_into_place(staged, base, job_id, stamp)
            sweep_log_link(job_dir, job_id)
            via = "cli (sbatch)" if submit_note else client.name
            append_event(
                job_dir, "submitted", f"slurm job {job_id} via {via}" + (f": {submit_note}" if submit_note else "")
            )
            remember_job(job_id, job_dir)  # before release: a job that runs is always indexed
            signals.check()
            client.release(job_id)
            orphans.end(record)
            signals.check()
        except BaseException as exc:
            abandoned = _abandon(client, job_id, job_dir, exc)
            orphans.end(record)  # cancelled, or indexed for status and cancel
            raise abandoned from None
    return Submission(job_id, job_dir, "slurm", notes, client, submit_note)


class SlurmUnreachable(SubmitError):
    """No Slurm controller answers and neither the command line nor the profile asked for another launcher."""

    exit_code = 3


def profile_launcher(profile: Profile, slurm_answers: bool) -> str:
    """The launcher a profile asks for, the one rule of `apply --launcher auto` and the wizard's Submit step:
    its `launcher`; when that is Slurm and no controller answers, its `fallback_launcher` if it names one.
    `slurm` when Slurm is asked for but does not answer: the caller refuses, never runs here silently."""
    if profile.launcher != "slurm":
        return profile.launcher
    if not slurm_answers and profile.fallback_launcher:
        return profile.fallback_launcher
    return "slurm"


def choose_launcher(
    prep: Prepared, launcher: str, transport: str, client: SlurmClient | None = None
) -> tuple[str, SlurmClient | None]:
    """`slurm` or `local`, and the client that answered when Slurm was pinged to decide (pinged once;
    not at all when ``client``, one that answered already, is given).

    `auto` takes the profile's `launcher`; when that is Slurm and no controller answers, the profile's
    `fallback_launcher` if it names one, else an error naming the Slurm failure."""
    if launcher != "auto":
        return launcher, client if launcher == "slurm" else None
    profile = prep.job.profile
    if profile.launcher != "slurm":
        return profile.launcher, None
    client, why = (client, "") if client is not None else reachable_client(transport)
    if client is not None:
        return "slurm", client
    chosen = profile_launcher(profile, slurm_answers=False)
    if chosen != "slurm":
        return chosen, None
    raise SlurmUnreachable(
        [
            Problem(
                field="slurm",
                message=f"no Slurm controller answers ({' / '.join(why.splitlines())}); nothing was submitted",
                hint=f"check SLURM_CONF and munge, or run on this machine with --launcher local "
                f"(profile {prep.plan.profile} names no fallback_launcher)",
            )
        ]
    )


def _safe_base(base: Path) -> Path:
    """The output directory checked without making anything (UnsafePath, or a SubmitError for a file there):
    refusals that come before anything is submitted leave no directory behind."""
    check_ancestors(base, "output directory")  # before anything is made in a directory others may rearrange
    if os.path.lexists(base) and not base.is_symlink() and not base.is_dir():
        raise _unwritable(base, NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(base)))
    if os.path.lexists(base):
        check_dir(base, "output directory", shared_ok=True)
    return base


def _checked_base(base: Path) -> Path:
    """The output directory, made 0700 when missing and checked (UnsafePath), or a SubmitError saying it
    cannot be written (a file there, a read-only file system). Called once the job will be written."""
    _safe_base(base)
    try:
        private_dir(base, "output directory", shared_ok=True)
    except OSError as exc:
        raise _unwritable(base, exc) from None
    return base


def _unwritable(base: Path, exc: OSError) -> SubmitError:
    """Nothing was submitted: ``base`` cannot be written."""
    return SubmitError(
        [
            Problem(
                field="output directory",
                message=f"cannot write {base}: {exc.strerror or exc}; nothing was submitted",
                hint="use -o with a writable directory that has free space, or fix the profile's output_dir",
            )
        ]
    )


def submit_prepared(
    prep: Prepared,
    launcher: str = "auto",
    output_dir: Path | None = None,
    transport: str = "auto",
    preflight: bool = True,
    client: SlurmClient | None = None,
    face: Face = "cli",
    waive_checks: bool = False,
) -> Submission:
    """Submit through the chosen launcher (see `choose_launcher`): never silently on this machine.
    ``client``: a Slurm client that answered already (the previous member's of a sweep), not pinged again;
    ``face``: who shows a refusal (its fixes are worded for the command line or the TUI); ``waive_checks``: the
    operator asked to submit past this machine's failing checks that may be wrong about where the job runs (the
    Submit step's Ctrl+N twice; `host_checks` says which: with Slurm a model or container path, a program or module
    only the compute nodes have; with the local launcher a module the job's own environment may bring), so those do
    not refuse it; every other check still does."""
    base = _safe_base(output_base(prep, output_dir))  # made only once a job is written: a refusal leaves nothing
    mount = mount_problem(str(base)) if prep.plan.container_runtime == "pyxis" else None
    if mount is not None:  # the job directory's logs/ is a pyxis mount: a `,` or `:` would split it
        raise SubmitError([Problem(field="output directory", message=mount[0], hint="use -o with a path without them")])
    chosen, client = choose_launcher(prep, launcher, transport, client)
    # the model and container paths and the programs a container-less job starts: the list the wizard's Submit runs
    host = host_checks(prep, chosen, face) if preflight else []
    waived = [c for c in host if waive_checks and c.blocks and c.waivable]
    refuse_failed([c for c in host if c not in waived])  # a missing model waits in the queue to fail on its first
    # node; a program the local launcher would start here fails the job at once (exit 127)
    if chosen == "local":
        sub = submit_local(prep, _checked_base(base))
    else:
        try:
            sub = submit_slurm(prep, base, transport, client, preflight, face)
        except SlurmUnavailable as exc:
            raise SlurmUnreachable(
                [Problem(field="slurm", message=str(exc), hint="check SLURM_CONF and munge, or use --launcher local")]
            ) from None
    # what this machine could not check, and what the operator submitted past: said, not blocking, each named by its
    # check (`model.path`), as the refusal names it: a path check's message carries its code (`[model-not-available]`)
    said = tuple(f"{c.name}: {c.message} (fix: {c.fix})" for c in host if c.ok is None)
    said += tuple(f"{c.name}: {c.message} (submitted past it, as asked)" for c in waived)
    return replace(sub, notes=(*sub.notes, *said)) if said else sub
