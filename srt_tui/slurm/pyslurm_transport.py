"""SlurmClient over pyslurm (Slurm 25.11 API), in-process; pyslurm is imported only when this transport is made."""

# pyslurm 25.11.2's calls used here: JobSubmitDescription(script=PATH, working_directory=DIR,
# environment={...}, <attributes from the rendered directives>).submit() -> int; Job.load(id);
# Job(id).cancel() / .release(); Jobs.load(); Nodes.load(); Partitions.load() (Partition.max_time);
# slurmctld.Config.load() (.version, .cluster_name); slurmctld.ping_primary(); RPCError.
# `import pyslurm` can end the process (libslurm fatal without a configuration): the module is
# imported only after pyslurm_probe saw a child process survive it.

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from srt_tui.slurm.client import TERMINAL_STATES, ControllerInfo, JobState, NodeInfo, PartitionInfo
from srt_tui.slurm.errors import SlurmError, SlurmUnavailable, looks_unavailable
from srt_tui.slurm.parse import (
    base_state,
    clean_reason,
    clean_times,
    expand_hostlist,
    json_number,
    parse_gres,
    stdout_path,
)
from srt_tui.slurm.pyslurm_directives import Directive, UnsupportedDirective, script_directives, submit_attributes
from srt_tui.slurm.pyslurm_probe import probe_pyslurm

T = TypeVar("T")


def _values(collection: Any) -> Iterable[Any]:
    """The records of a pyslurm collection (a dict-like keyed by id or name)."""
    values = getattr(collection, "values", None)
    return list(values()) if callable(values) else list(collection)


def _str(value: object) -> str:
    """Text of an optional pyslurm attribute."""
    return "" if value is None else str(value)


def _gres_text(value: object) -> str:
    """A GRES string from pyslurm's dict form (``{"gpu:h100": 8}``) or a plain string."""
    if isinstance(value, Mapping):
        return ",".join(f"{name}:{count}" for name, count in value.items())
    return _str(value)


class PyslurmTransport:
    """Drives Slurm through pyslurm's in-process API (needs pyslurm built for this Slurm)."""

    name: str = "pyslurm"
    supports_json: bool = False
    in_process: bool = True

    def __init__(self, module: ModuleType | None = None) -> None:
        if module is None:
            probe = probe_pyslurm()
            if not probe.importable:
                raise SlurmUnavailable(f"pyslurm: {probe.problem}", command=["pyslurm", "import"])
        self._pyslurm: Any = module if module is not None else importlib.import_module("pyslurm")
        self.last_error: str | None = None
        #: how the last job was submitted when pyslurm could not take it ('' when pyslurm did)
        self.submit_note = ""

    def _call(self, what: str, func: Callable[[], T]) -> T:
        """Run one pyslurm call, turning its errors into SlurmUnavailable / SlurmError."""
        try:
            return func()
        except SlurmError:
            raise
        except Exception as exc:  # pyslurm.RPCError, ValueError, MemoryError, ...
            message = str(exc) or type(exc).__name__
            if looks_unavailable(message):
                raise SlurmUnavailable(
                    f"slurmctld not reachable via pyslurm ({what}): {message}; check SLURM_CONF / munge",
                    command=["pyslurm", what],
                ) from exc
            raise SlurmError(message, command=["pyslurm", what]) from exc

    def submit(
        self,
        script_path: Path,
        workdir: Path,
        extra_env: Mapping[str, str] | None = None,
        *,
        hold: bool = False,
        output: str | None = None,
        directives: Sequence[Directive] | None = None,
    ) -> str:
        """Submit with the attributes of the directives srt-tui rendered (``directives``, else the script's
        ``#SBATCH`` lines read by srt-tui, not by pyslurm's ``load_sbatch_options``); our env plus
        ``extra_env``. A directive pyslurm cannot express sends this job through ``sbatch`` instead,
        said in ``submit_note``; a refusal by slurmctld is a SlurmError as with sbatch."""
        self.submit_note = ""
        try:
            attrs = submit_attributes(script_directives(script_path) if directives is None else directives)
        except UnsupportedDirective as exc:
            return self._sbatch_instead(f"pyslurm cannot express {exc}", script_path, workdir, extra_env, hold, output)
        env = dict(os.environ)
        env.pop("SLURM_JWT", None)
        env.update({str(k): str(v) for k, v in (extra_env or {}).items()})
        # what the command line gives sbatch wins over the script's directives, as with sbatch
        attrs.update(script=str(script_path), working_directory=str(workdir), environment=env)
        if hold:
            attrs["priority"] = 0  # what `sbatch --hold` does: a held job, released by Job.release()
        if output:
            attrs["standard_output"] = output
        rpc_error = getattr(self._pyslurm, "RPCError", None) or SlurmError
        try:
            desc = self._pyslurm.JobSubmitDescription(**attrs)
            return self._call("submit", lambda: str(desc.submit()))
        except SlurmError as exc:
            if isinstance(exc.__cause__, rpc_error) or isinstance(exc, SlurmUnavailable):
                raise  # slurmctld's own answer: sbatch would get the same
            return self._sbatch_instead(
                f"pyslurm could not build the job ({exc})", script_path, workdir, extra_env, hold, output
            )
        except (AttributeError, TypeError, ValueError, OverflowError) as exc:  # a setattr pyslurm refused
            return self._sbatch_instead(
                f"pyslurm could not build the job ({type(exc).__name__}: {exc})",
                script_path,
                workdir,
                extra_env,
                hold,
                output,
            )

    def _sbatch_instead(
        self,
        why: str,
        script_path: Path,
        workdir: Path,
        extra_env: Mapping[str, str] | None,
        hold: bool,
        output: str | None,
    ) -> str:
        """Submit this one job through ``sbatch`` (a pyslurm gap never fails a job); ``submit_note`` says so."""
        from srt_tui.slurm.cli_transport import CliTransport

        job_id = CliTransport().submit(script_path, workdir, extra_env, hold=hold, output=output)
        self.submit_note = f"{why}: job {job_id} was submitted through sbatch instead"
        return job_id

    def release(self, job_id: str) -> None:
        """``pyslurm.Job(id).release()``."""
        self._check_id(job_id)
        self._call("Job.release", lambda: self._pyslurm.Job(int(job_id)).release())

    @staticmethod
    def _check_id(job_id: str) -> None:
        """Refuse anything that is not a numeric job id."""
        if not str(job_id).isdigit():
            raise SlurmError(f"not a Slurm job id: {job_id!r}", command=["pyslurm", str(job_id)])

    def _job(self, job: Any) -> JobState:
        """A JobState from a pyslurm.Job."""
        state = base_state(getattr(job, "state", ""))
        code = json_number(getattr(job, "exit_code", None))
        signal = json_number(getattr(job, "exit_code_signal", None)) or None
        if state not in TERMINAL_STATES:
            code, signal = None, None
        start, end, expected = clean_times(
            state,
            json_number(getattr(job, "start_time", None)) or None,
            json_number(getattr(job, "end_time", None)) or None,
        )
        nodes = _str(getattr(job, "allocated_nodes", None) or getattr(job, "nodes", None))
        return JobState(
            job_id=str(getattr(job, "id", "")),
            name=_str(getattr(job, "name", "")),
            state=state,
            reason=clean_reason(_str(getattr(job, "state_reason", ""))),
            nodes=tuple(expand_hostlist(nodes)),
            node_count=json_number(getattr(job, "num_nodes", None)) or 0,
            exit_code=code,
            exit_signal=signal,
            submit_time=json_number(getattr(job, "submit_time", None)) or None,
            start_time=start,
            expected_start=expected,
            end_time=end,
            time_limit=json_number(getattr(job, "time_limit", None)),
            partition=_str(getattr(job, "partition", "")),
            work_dir=_str(getattr(job, "working_directory", "")),
        )

    def query(self, job_ids: Sequence[str]) -> dict[str, JobState]:
        """Each given job by ``pyslurm.Job.load(id)``: one small RPC per tracked job, never the whole
        cluster (``Jobs.load()`` would ship every job of a production controller each refresh)."""
        out: dict[str, JobState] = {}
        for job_id in dict.fromkeys(str(j) for j in job_ids):
            out[job_id] = self._load_job(job_id)
        return out

    def _load_job(self, job_id: str) -> JobState:
        """One job; a job slurmctld does not (or no longer) know is ``JobState.unknown``."""
        if not job_id.isdigit():
            return JobState.unknown(job_id)
        try:
            job = self._call("Job.load", lambda: self._pyslurm.Job.load(int(job_id)))
        except SlurmUnavailable:
            raise
        except SlurmError as exc:
            if "invalid job id" in str(exc).lower():
                return JobState.unknown(job_id)
            raise
        return self._job(job)

    def user_jobs(self, user: str) -> list[JobState]:
        """``pyslurm.Jobs.load()`` (one RPC: slurmctld has no per-user job query) kept to ``user``'s jobs."""
        loaded = self._call("Jobs.load", lambda: _values(self._pyslurm.Jobs.load()))
        out: list[JobState] = []
        for job in loaded:
            owner = _str(getattr(job, "user_name", ""))
            if owner != user:
                continue
            state = self._job(job)
            stdout = _str(getattr(job, "standard_output", ""))
            out.append(
                replace(state, user=owner, stdout=stdout_path(stdout, state.job_id, state.name, owner, state.work_dir))
            )
        return out

    def show_job(self, job_id: str) -> dict[str, str]:
        """``scontrol show job`` through the command-line transport: its field names are what operators know."""
        from srt_tui.slurm.cli_transport import CliTransport

        return CliTransport().show_job(job_id)

    def cancel(self, job_id: str) -> None:
        """``pyslurm.Job(id).cancel()``."""
        self._check_id(job_id)
        self._call("Job.cancel", lambda: self._pyslurm.Job(int(job_id)).cancel())

    def partitions(self) -> list[PartitionInfo]:
        """``pyslurm.Partitions.load()``."""
        loaded = self._call("Partitions.load", lambda: _values(self._pyslurm.Partitions.load()))
        out: list[PartitionInfo] = []
        for part in loaded:
            out.append(
                PartitionInfo(
                    name=_str(getattr(part, "name", "")),
                    state=_str(getattr(part, "state", "")).upper(),
                    nodes=tuple(expand_hostlist(_str(getattr(part, "nodes", "")))),
                    total_nodes=json_number(getattr(part, "total_nodes", None)) or 0,
                    total_cpus=json_number(getattr(part, "total_cpus", None)) or 0,
                    is_default=bool(getattr(part, "is_default", False)),
                    max_time=json_number(getattr(part, "max_time", None)),  # minutes, or "UNLIMITED"
                )
            )
        return out

    def nodes(self) -> list[NodeInfo]:
        """``pyslurm.Nodes.load()``."""
        loaded = self._call("Nodes.load", lambda: _values(self._pyslurm.Nodes.load()))
        out: list[NodeInfo] = []
        for node in loaded:
            gres = _gres_text(getattr(node, "configured_gres", None))
            gpus, gpu_type = parse_gres(gres)
            memory = getattr(node, "real_memory", None)
            if not isinstance(memory, int):  # older pyslurm: humanised text + real_memory_raw
                memory = getattr(node, "real_memory_raw", None)
            cpus = getattr(node, "total_cpus", None)
            out.append(
                NodeInfo(
                    name=_str(getattr(node, "name", "")),
                    state=_str(getattr(node, "state", "")).upper(),
                    cpus=json_number(cpus if cpus is not None else getattr(node, "cpus", None)) or 0,
                    memory_mb=json_number(memory) or 0,
                    gres=gres,
                    gpus=gpus,
                    gpu_type=gpu_type,
                    partitions=tuple(_str(p) for p in getattr(node, "partitions", None) or ()),
                    address=_str(getattr(node, "address", "")),
                )
            )
        return out

    def controller_info(self) -> ControllerInfo:
        """``pyslurm.slurmctld.Config.load()``: the controller's ``version`` and ``cluster_name``."""
        config = self._call("slurmctld.Config.load", lambda: self._pyslurm.slurmctld.Config.load())
        return ControllerInfo(
            _str(getattr(config, "version", "")) or "unknown", _str(getattr(config, "cluster_name", "")) or None
        )

    @property
    def library_version(self) -> str:
        """pyslurm's own version (its first two numbers are the Slurm release it is built for)."""
        return _str(getattr(self._pyslurm, "__version__", ""))

    def test_submit(self, options: Sequence[str]) -> str | None:
        """pyslurm has no ``--test-only``: ``sbatch --test-only`` through the command-line transport."""
        from srt_tui.slurm.cli_transport import CliTransport

        return CliTransport().test_submit(options)

    def mpi_list(self) -> str:
        """``srun --mpi=list`` through the command-line transport (srun is a command)."""
        from srt_tui.slurm.cli_transport import CliTransport

        return CliTransport().mpi_list()

    def test_mpi(self, plugin: str, options: Sequence[str]) -> str | None:
        """``srun --test-only --mpi=PLUGIN`` through the command-line transport."""
        from srt_tui.slurm.cli_transport import CliTransport

        return CliTransport().test_mpi(plugin, options)

    def accounts(self, user: str) -> list[str] | None:
        """``pyslurm.db.Associations.load(AssociationFilter(users=[user]))``; None without accounting."""
        db = getattr(self._pyslurm, "db", None)
        if db is None or not hasattr(db, "Associations"):
            return None
        try:
            loaded = _values(db.Associations.load(db.AssociationFilter(users=[user])))
        except Exception:  # no slurmdbd / accounting disabled: the caller says "not checked"
            return None
        return list(dict.fromkeys(_str(getattr(a, "account", "")) for a in loaded if getattr(a, "account", None)))

    def ping(self) -> bool:
        """``pyslurm.slurmctld.ping_primary()`` (or a partition load on older pyslurm)."""
        try:
            slurmctld = getattr(self._pyslurm, "slurmctld", None)
            ping_primary = getattr(slurmctld, "ping_primary", None)
            if callable(ping_primary):
                response = self._call("slurmctld.ping_primary", ping_primary)
                up = bool(getattr(response, "is_responding", True))
            else:
                self.partitions()
                up = True
        except SlurmError as exc:
            self.last_error = str(exc)
            return False
        self.last_error = None if up else "slurmctld not reachable via pyslurm: the primary does not respond"
        return up
