"""SlurmClient over Slurm's command-line tools (sbatch, squeue, scontrol, scancel, sinfo)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from srt_tui.slurm import advice
from srt_tui.slurm.client import ControllerInfo, JobState, NodeInfo, PartitionInfo
from srt_tui.slurm.errors import SlurmError, SlurmUnavailable, looks_unavailable
from srt_tui.slurm.parse import (
    SACCT_FIELDS,
    SINFO_NODES_FORMAT,
    SQUEUE_TEXT_FORMAT,
    parse_kv_line,
    parse_sacct,
    parse_sbatch_parsable,
    parse_scontrol_config,
    parse_scontrol_ping,
    parse_scontrol_show_jobs,
    parse_scontrol_show_partitions,
    parse_sinfo_json,
    parse_sinfo_nodes_text,
    parse_squeue_json,
    parse_squeue_text,
    parse_user_jobs,
    user_jobs_format,
)

#: stderr fragments meaning "this Slurm has no --json" (too old, or its serializer plugin is missing).
_NO_JSON_PATTERNS: tuple[str, ...] = (
    "unrecognized option",
    "invalid option",
    "unknown option",
    "serializer",
    "data_parser",
    "json",
)


def _tail(text: str, lines: int = 6) -> str:
    """The last few non-empty lines of a command's output, for error messages."""
    kept = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


class CliTransport:
    """Drives Slurm through its commands; every call has a timeout and clear operator errors."""

    name: str = "cli"
    supports_json: bool = True
    in_process: bool = False

    def __init__(
        self,
        *,
        timeout: float = 30.0,
        ping_timeout: float = 10.0,
        env: Mapping[str, str] | None = None,
        bin_dir: str | Path | None = None,
        use_json: bool = True,
    ) -> None:
        self.timeout = timeout
        self.ping_timeout = ping_timeout
        self.env: dict[str, str] | None = dict(env) if env is not None else None
        self.bin_dir = Path(bin_dir) if bin_dir is not None else None
        self.supports_json = use_json
        self.last_error: str | None = None
        self.submit_note = ""  # sbatch reads every directive itself
        self._sinfo_json = True
        #: Slurm commands run and bytes of output read so far (`benchmarks/slurm_queries.py`)
        self.calls = 0
        self.bytes_read = 0
        #: ended jobs with their exit code: they do not change, so they are not asked for again
        self._ended: dict[str, JobState] = {}
        #: whether `sacct` answers (None: not tried yet; False: no accounting here, use scontrol)
        self._sacct: bool | None = None

    # ------------------------------------------------------------------ plumbing

    def _environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a Slurm command: ours (or os.environ) plus ``extra``."""
        env = dict(self.env if self.env is not None else os.environ)
        env.pop("SLURM_JWT", None)  # would switch every command (and srun in the job) to auth/jwt
        if extra:
            env.update({str(k): str(v) for k, v in extra.items()})
        return env

    def _run(
        self,
        args: Sequence[str],
        *,
        timeout: float | None = None,
        extra_env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        """Run one Slurm command; raise SlurmUnavailable if Slurm cannot be used, SlurmError if it refused."""
        env = self._environment(extra_env)
        argv = list(args)
        if self.bin_dir is not None:
            argv[0] = str(self.bin_dir / argv[0])
        command = " ".join(argv)
        conf = env.get("SLURM_CONF")
        if conf and not Path(conf).is_file():
            raise SlurmUnavailable(f"{args[0]}: {advice.conf_missing(conf, env)}", command=argv)
        limit = self.timeout if timeout is None else timeout
        try:
            proc = subprocess.run(
                argv,
                env=env,
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=limit,
                stdin=subprocess.DEVNULL,
            )
        except FileNotFoundError as exc:
            raise SlurmUnavailable(advice.commands_missing(args[0]), command=argv) from exc
        except subprocess.TimeoutExpired as exc:
            said = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
            raise SlurmUnavailable(
                f"slurmctld not reachable: `{command}` did not answer within {limit:g} s; "
                f"{advice.unreachable_fix(said, env)}" + (f". It said: {_tail(said)}" if said.strip() else ""),
                command=argv,
                stderr=said,
            ) from exc
        self.calls += 1
        self.bytes_read += len(proc.stdout or "") + len(proc.stderr or "")
        if check and proc.returncode != 0:
            raise self._error(argv, proc, env)
        return proc

    def _error(self, argv: Sequence[str], proc: subprocess.CompletedProcess[str], env: Mapping[str, str]) -> SlurmError:
        """Classify a failed command: unreachable/auth/config -> SlurmUnavailable, else SlurmError."""
        said = (proc.stderr or "").strip() or (proc.stdout or "").strip()
        if self._is_unavailable(said):
            return SlurmUnavailable(
                f"slurmctld not reachable: {advice.unreachable_fix(said, env)}. `{' '.join(argv)}` said: {_tail(said)}",
                command=argv,
                stderr=proc.stderr or "",
                returncode=proc.returncode,
            )
        return SlurmError(
            said or f"`{' '.join(argv)}` failed with exit code {proc.returncode}",
            command=argv,
            stderr=proc.stderr or "",
            returncode=proc.returncode,
        )

    @staticmethod
    def _is_unavailable(said: str) -> bool:
        """True if Slurm's message says it cannot be reached or used (rather than a refusal)."""
        return looks_unavailable(said)

    # ------------------------------------------------------------------ SlurmClient

    def submit(
        self,
        script_path: Path,
        workdir: Path,
        extra_env: Mapping[str, str] | None = None,
        *,
        hold: bool = False,
        output: str | None = None,
        directives: Sequence[tuple[str, str | None]] | None = None,
    ) -> str:
        """``sbatch --parsable --chdir=WORKDIR [--hold] [--output=..] SCRIPT`` with our env plus ``extra_env``
        (sbatch reads the script's directives itself: ``directives`` is not needed)."""
        workdir = Path(workdir)
        args = ["sbatch", "--parsable", f"--chdir={workdir}"]
        if hold:
            args.append("--hold")
        if output:
            args.append(f"--output={output}")
        proc = self._run(
            [*args, str(script_path)],
            extra_env=extra_env,
            cwd=workdir if workdir.is_dir() else None,
        )
        try:
            return parse_sbatch_parsable(proc.stdout)
        except ValueError as exc:
            raise SlurmError(str(exc), command=["sbatch"], stderr=proc.stderr) from exc

    def release(self, job_id: str) -> None:
        """``scontrol release ID``."""
        self._check_id(job_id, "scontrol release")
        self._run(["scontrol", "release", str(job_id)])

    @staticmethod
    def _check_id(job_id: str, command: str) -> None:
        """Refuse anything that is not a job id before it reaches a command line."""
        if not re.fullmatch(r"\d+(_\d+)?", str(job_id)):
            raise SlurmError(f"not a Slurm job id: {job_id!r}", command=[*command.split(), str(job_id)])

    def query(self, job_ids: Sequence[str]) -> dict[str, JobState]:
        """The given jobs from one ``squeue -j IDS`` (never the whole cluster).

        22.05's ``squeue --json`` ignores ``-j``/``-u`` and returns every job of the cluster, so the
        scoped text format is used. Exit codes of ended jobs, and jobs squeue no longer shows, come
        from one ``sacct`` where accounting runs, else ``scontrol show job ID`` per ended job; an ended
        job is asked for once (its record does not change).
        """
        wanted = [str(job_id) for job_id in job_ids]
        if not wanted:
            return {}
        for job_id in wanted:
            self._check_id(job_id, "squeue -j")
        ask = [job_id for job_id in dict.fromkeys(wanted) if job_id not in self._ended]
        found = self._squeue(ask) if ask else {}
        no_code = [j for j, job in found.items() if job.is_terminal and job.exit_code is None]
        gone = [j for j in ask if j not in found]
        if no_code or gone:
            found.update(self._ended_jobs(no_code, gone, found))
        for job_id, job in found.items():
            if job.is_terminal and job.exit_code is not None:
                self._ended[job_id] = job
        return {j: self._ended.get(j) or found.get(j) or JobState.unknown(j) for j in wanted}

    def _squeue(self, ids: Sequence[str]) -> dict[str, JobState]:
        """``squeue -h --states=all -j IDS -o FORMAT``: only these jobs."""
        args = ["squeue", "-h", "--states=all", "-j", ",".join(ids), "-o", SQUEUE_TEXT_FORMAT]
        proc = self._run(args, check=False)
        if proc.returncode != 0:
            said = proc.stderr or proc.stdout
            if "invalid job id" in said.lower() and not self._is_unavailable(said):
                return {}  # 22.05 refuses a lone id it no longer knows (the others: just not listed)
            raise self._error(args, proc, self._environment())
        wanted = set(ids)
        return {j: job for j, job in parse_squeue_text(proc.stdout).items() if j in wanted}

    def _ended_jobs(self, no_code: list[str], gone: list[str], found: dict[str, JobState]) -> dict[str, JobState]:
        """Exit codes of ended jobs and the records of jobs squeue forgot: sacct, else scontrol per job."""
        if self._sacct is not False:
            ids = ",".join([*no_code, *gone])
            try:
                proc = self._run(["sacct", "-n", "-P", "-X", "-j", ids, "-o", SACCT_FIELDS])
            except SlurmError:  # no sacct, or no accounting ("accounting storage is disabled")
                self._sacct = False
            else:
                self._sacct = True
                acct = parse_sacct(proc.stdout)
                out = {j: acct[j] for j in gone if j in acct}
                for j in no_code:
                    if j in acct and acct[j].exit_code is not None:
                        out[j] = replace(found[j], exit_code=acct[j].exit_code, exit_signal=acct[j].exit_signal)
                return out
        out = {}
        for job_id in no_code:  # without accounting, a job squeue forgot stays unknown
            proc = self._run(["scontrol", "show", "job", "-o", job_id], check=False)
            detail = parse_scontrol_show_jobs(proc.stdout).get(job_id) if proc.returncode == 0 else None
            if detail is not None:
                out[job_id] = replace(found[job_id], exit_code=detail.exit_code, exit_signal=detail.exit_signal)
        return out

    def _squeue_all(self) -> dict[str, JobState]:
        """Every job slurmctld still holds, JSON first, then the text format (tests compare the two)."""
        if self.supports_json:
            doc = self._json_call(["squeue", "--json", "--states=all"])
            if doc is not None:
                return parse_squeue_json(doc)
        return parse_squeue_text(self._run(["squeue", "-h", "--states=all", "-o", SQUEUE_TEXT_FORMAT]).stdout)

    def _json_call(self, args: Sequence[str]) -> dict[str, Any] | None:
        """Run a ``--json`` command; None means "use the text command instead" (it tells why Slurm failed)."""
        # 22.05 exits 0 even when slurmctld is unreachable, with only a reasonless ``errors`` list in
        # the JSON; the text command then fails with Slurm's real message. A Slurm without ``--json``
        # switches this transport to text for good.
        proc = self._run(args, check=False)
        if proc.returncode != 0:
            said = proc.stderr or proc.stdout
            if self._is_unavailable(said) or not self._lacks_json(said):
                raise self._error(list(args), proc, self._environment())
            self.supports_json = False
            return None
        try:
            doc = json.loads(proc.stdout)
        except ValueError:
            return None
        if not isinstance(doc, dict) or doc.get("errors"):
            return None
        return doc

    @staticmethod
    def _lacks_json(said: str) -> bool:
        """True if a failed ``--json`` call says this Slurm cannot produce JSON."""
        lowered = said.lower()
        return any(pattern in lowered for pattern in _NO_JSON_PATTERNS)

    def show_job(self, job_id: str) -> dict[str, str]:
        """Every field of ``scontrol show job -o ID`` (Key=Value), for detail views."""
        self._check_id(job_id, "scontrol show job")
        proc = self._run(["scontrol", "show", "job", "-o", str(job_id)])
        line = next((ln for ln in proc.stdout.splitlines() if "JobId=" in ln), "")
        return parse_kv_line(line)

    def user_jobs(self, user: str) -> list[JobState]:
        """``squeue -h --states=all -u USER -O FIELDS`` (scoped by slurmctld: ``--json`` ignores ``-u`` in
        22.05), then the user's jobs ended in the last day from one ``sacct`` where accounting runs."""
        if not re.fullmatch(r"[A-Za-z0-9._][A-Za-z0-9._@-]*", user):
            raise SlurmError(f"not a user name: {user!r}", command=["squeue", "-u", user])
        proc = self._run(["squeue", "-h", "--states=all", "-u", user, "-O", user_jobs_format()])
        jobs = parse_user_jobs(proc.stdout)
        seen = {job.job_id for job in jobs}
        if self._sacct is not False:
            args = ["sacct", "-n", "-P", "-X", "-u", user, "-S", "now-1days", "-o", SACCT_FIELDS]
            try:
                acct = parse_sacct(self._run(args).stdout)
            except SlurmError:  # no accounting ("accounting storage is disabled", slurmdbd down): squeue's view
                self._sacct = False
            else:
                self._sacct = True
                ended = [replace(j, user=user) for j in acct.values() if j.is_terminal and j.job_id not in seen]
                jobs.extend(sorted(ended, key=lambda j: j.end_time or 0, reverse=True))
        return jobs

    def cancel(self, job_id: str) -> None:
        """``scancel ID`` (exits 0 for an unknown or finished job in 22.05)."""
        self._check_id(job_id, "scancel")
        self._run(["scancel", str(job_id)])

    def partitions(self) -> list[PartitionInfo]:
        """``scontrol show partition -o`` (same text in every Slurm version)."""
        return parse_scontrol_show_partitions(self._run(["scontrol", "show", "partition", "-o"]).stdout)

    def nodes(self) -> list[NodeInfo]:
        """``sinfo --json`` (22.05/23.02's per-node list or 23.11+'s groups: one call) or ``sinfo -N -h -o`` text."""
        if self.supports_json and self._sinfo_json:
            doc = self._json_call(["sinfo", "--json"])
            parsed = parse_sinfo_json(doc) if doc is not None else None
            if parsed is not None:
                return parsed
            if doc is not None:
                self._sinfo_json = False  # a shape none of the parsed ones: use the text from now on
        proc = self._run(["sinfo", "-N", "-h", "-o", SINFO_NODES_FORMAT])
        return parse_sinfo_nodes_text(proc.stdout)

    def controller_info(self) -> ControllerInfo:
        """``scontrol show config``: ``SLURM_VERSION`` and ``ClusterName``."""
        config = parse_scontrol_config(self._run(["scontrol", "show", "config"]).stdout)
        name = config.get("ClusterName") or None
        return ControllerInfo(config.get("SLURM_VERSION", "unknown"), name)

    def test_submit(self, options: Sequence[str]) -> str | None:
        """``sbatch --test-only OPTIONS --wrap true``: None if accepted, else what sbatch said."""
        args = ["sbatch", "--test-only", *options, "--wrap", "true"]
        proc = self._run(args, check=False)
        if proc.returncode == 0:
            return None
        said = (proc.stderr or proc.stdout).strip()
        if self._is_unavailable(said):
            raise self._error(args, proc, self._environment())
        return " / ".join([ln.strip() for ln in said.splitlines() if ln.strip()][-2:]) or "no reason given"

    def mpi_list(self) -> str:
        """``srun --mpi=list`` (run here, no job): the MPI plugin names this Slurm has installed."""
        return self._run(["srun", "--mpi=list"]).stdout

    def test_mpi(self, plugin: str, options: Sequence[str]) -> str | None:
        """``srun --test-only --mpi=PLUGIN OPTIONS true``: None if the plugin loads, else srun's last error."""
        proc = self._run(["srun", "--test-only", f"--mpi={plugin}", *options, "true"], check=False)
        if proc.returncode == 0:
            return None
        # `srun: error:  mpi/pmix_v4: init: (null) [0]: mpi_pmix.c:195: pmi/pmix: can not load PMIx library`
        lines = [
            re.sub(r"^.*?\.c:\d+: ", "", ln.strip().removeprefix("srun: error:").strip())
            for ln in (proc.stderr or proc.stdout).splitlines()
        ]
        return next((ln for ln in lines if "MPI type" in ln or "can not load" in ln), "") or (
            lines[-1] if [ln for ln in lines if ln] else "no reason given"
        )

    def accounts(self, user: str) -> list[str] | None:
        """``sacctmgr -nP show assoc user=USER format=account``; None without accounting (slurmdbd)."""
        try:
            proc = self._run(["sacctmgr", "-nP", "show", "assoc", f"user={user}", "format=account"])
        except SlurmError:  # no sacctmgr, or "accounting storage is disabled" / slurmdbd down
            return None
        return list(dict.fromkeys(line.strip() for line in proc.stdout.splitlines() if line.strip()))

    def ping(self) -> bool:
        """``scontrol ping`` within ``ping_timeout``; on False ``last_error`` says why."""
        try:
            proc = self._run(["scontrol", "ping"], timeout=self.ping_timeout, check=False)
        except SlurmError as exc:
            self.last_error = str(exc)
            return False
        if parse_scontrol_ping(proc.stdout):
            self.last_error = None
            return True
        lines = (proc.stdout + "\n" + proc.stderr).splitlines()
        said = "; ".join(ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("*"))
        fix = advice.unreachable_fix(said, self._environment())
        self.last_error = f"slurmctld not reachable: {fix}. `scontrol ping` said: {said or 'nothing'}"
        return False
