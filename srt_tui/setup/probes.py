"""The probes: Slurm controller, partitions and nodes, GPU request directive, account, one compute node.

``run_probes`` runs them in order, reports progress through a callback and turns every failure (no
Slurm commands, refused submissions, missing tools, timeouts) into a Finding; it never raises.
"""

from __future__ import annotations

import getpass
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from srt_tui.setup.findings import Finding, worst
from srt_tui.setup.holders import WAITS_FOR_NODES, Holders, holders_of, pending_fix
from srt_tui.setup.mpi import MpiProbe, probe_mpi
from srt_tui.setup.node_script import NodeReport, parse_node_output, render_node_script
from srt_tui.slurm import advice
from srt_tui.slurm.client import JobState, NodeInfo, PartitionInfo, SlurmClient
from srt_tui.slurm.errors import SlurmError
from srt_tui.slurm.pyslurm_probe import mismatch, probe_pyslurm
from srt_tui.slurm.select import get_client

#: (step id, label) in the order the probes run.
STEPS: tuple[tuple[str, str], ...] = (
    ("slurm", "Slurm controller"),
    ("partitions", "Partitions and nodes"),
    ("directive", "GPU request directive"),
    ("account", "Default account"),
    ("node", "Compute node (probe job)"),
)

#: progress(step id, status, detail); status is "running", "ok", "info", "warning", "error" or "skipped".
Progress = Callable[[str, str, str], None]


def _no_progress(step: str, status: str, detail: str) -> None:
    return None


#: what `Prober._wait` says when the operator stopped waiting for the probe job
STOPPED = "STOPPED"
#: what `Prober._wait` says when the operator's own jobs hold every node past the time it may wait
BLOCKED = "BLOCKED"
#: how often a waiting probe job looks again at which of the operator's jobs hold the partition's nodes
HOLDERS_EVERY = 10.0
#: the fix of a probe job the operator stopped
_AGAIN = "run the probes again when the partition has room, or choose an idle partition"


@dataclass(frozen=True)
class ProbeOptions:
    """What to probe and how long to wait for each answer."""

    partition: str | None = None
    paths: tuple[str, ...] = ()
    #: of ``paths``, those a job may never read (doctor: model paths no checked engine loads): missing, they only warn
    unread_paths: tuple[str, ...] = ()
    extra_path: str | None = None
    workdir: Path | None = None
    command_timeout: float = 20.0
    tool_timeout: float = 15.0
    node_timeout: float = 120.0
    probe_node: bool = True
    #: MPI plugins to try beside pmix/pmi2 (doctor: the profile's own `mpi_plugin`)
    mpi_also: tuple[str, ...] = ()
    #: set by the operator to stop waiting for the probe job (a busy partition kept it pending): it is cancelled
    stop: threading.Event | None = field(default=None, compare=False)


@dataclass
class ProbeRun:
    """Everything the probes learnt, plus one finding per probe (and per problem)."""

    cluster_name: str | None = None
    reachable: bool = False
    partitions: list[PartitionInfo] = field(default_factory=list)
    nodes: list[NodeInfo] = field(default_factory=list)
    partition: str | None = None
    #: how `partition` was chosen (the operator named it, the cluster's default, or the first listed): the
    #: profile's comment says it
    partition_why: str = "the cluster's default partition"
    gpus_per_node_directive: bool | None = None
    gres_directive: bool | None = None
    segment_directive: bool | None = None
    directive_evidence: str = ""
    account: str | None = None
    #: `srun --mpi=list` and which of its plugins load (None: not probed, e.g. a client without srun)
    mpi: MpiProbe | None = None
    node: NodeReport | None = None
    #: the probe job srt-tui submitted, and whether it was then cancelled (stopped or timed out): what an
    #: interrupted `setup --probe` says of it
    node_job: str | None = None
    node_job_cancelled: bool = False
    findings: list[Finding] = field(default_factory=list)

    def partition_nodes(self, name: str | None = None) -> list[NodeInfo]:
        """The nodes of a partition (the chosen one by default)."""
        wanted = name or self.partition
        part = next((p for p in self.partitions if p.name == wanted), None)
        if part is None:
            return []
        return [n for n in self.nodes if n.name in part.nodes or wanted in n.partitions]

    def partition_info(self, name: str | None = None) -> PartitionInfo | None:
        """The PartitionInfo of a partition (the chosen one by default)."""
        wanted = name or self.partition
        return next((p for p in self.partitions if p.name == wanted), None)


ProbeRunner = Callable[[ProbeOptions, Progress], ProbeRun]


def default_workdir() -> Path:
    """Where probe scripts and their output go: must be visible to compute nodes (home is, usually)."""
    state = os.environ.get("SRT_TUI_STATE_DIR")
    base = Path(state) if state else Path.home() / ".cache" / "srt-tui"
    return base / "probes"


class Prober:
    """Runs the probes against one cluster; each ``probe_*`` method appends findings to ``run``."""

    def __init__(
        self, options: ProbeOptions, client: SlurmClient | None = None, progress: Progress = _no_progress
    ) -> None:
        self.options = options
        self.progress = progress
        # the transport everything else uses ($SRT_TUI_SLURM_TRANSPORT), not yet required to answer
        self.client: SlurmClient = client or get_client(None, require_reachable=False, timeout=options.command_timeout)
        self.run = ProbeRun()
        #: a pending probe job: Slurm's record when last seen, and the operator's jobs that hold its nodes
        self._waiting: JobState | None = None
        self._holders: Holders | None = None

    def _add(self, finding: Finding) -> Finding:
        self.run.findings.append(finding)
        return finding

    # -- slurm ------------------------------------------------------------------------------------

    def probe_slurm(self) -> list[Finding]:
        """slurmctld answering, through the SlurmClient (its version and the cluster's name)."""
        try:
            info = self.client.controller_info()
        except SlurmError as exc:
            said = str(exc)
            fix = (
                f"{advice.MODULE} or add Slurm's bin directory to PATH"
                if " not found" in said
                else f"set SLURM_CONF to this cluster's slurm.conf or {advice.MODULE}, check munge "
                "(`munge -n | unmunge`), then ask the cluster's admins"
            )
            return [self._add(Finding.bad("slurm", said, fix))]
        self.run.reachable = True
        self.run.cluster_name = info.cluster_name
        pyslurm = probe_pyslurm()
        value = f"Slurm {info.version}, cluster {info.cluster_name or '(unnamed)'}, {self.client.name} transport"
        if pyslurm.pyslurm_version:
            value += f", pyslurm {pyslurm.pyslurm_version}"
        out = [self._add(Finding.good("slurm", value, f"{self.client.name} transport: the controller answered"))]
        line = mismatch(pyslurm.pyslurm_version, info.version)
        if line:  # a pyslurm built for another Slurm: `auto` uses the command line; say how to use pyslurm
            error, _, fix = line.partition(": ")
            out.append(self._add(Finding.warn("pyslurm", error, fix, evidence="pyslurm.__version__, controller")))
        return out

    # -- partitions and nodes -----------------------------------------------------------------------

    def probe_partitions(self) -> list[Finding]:
        """Partitions and nodes (CPUs, memory, GRES) through the SlurmClient; choose the partition."""
        out: list[Finding] = []
        try:
            self.run.partitions = self.client.partitions()
            self.run.nodes = self.client.nodes()
        except SlurmError as exc:
            return [self._add(Finding.bad("partitions", f"Slurm refused the listing: {exc}", "check slurmctld"))]
        names = [p.name for p in self.run.partitions]
        wanted = self.options.partition
        if wanted and wanted not in names:
            out.append(
                self._add(
                    Finding.bad(
                        "partition",
                        f"partition `{wanted}` does not exist",
                        f"choose one of: {', '.join(names) or '(none)'}",
                        evidence="scontrol show partition",
                    )
                )
            )
            wanted = None
        default = next((p.name for p in self.run.partitions if p.is_default), None)
        self.run.partition = wanted or default or (names[0] if names else None)
        if wanted:
            self.run.partition_why = "chosen by the operator"
        elif default is None:
            self.run.partition_why = "the first partition Slurm lists (none is the default)"
        if self.run.partition is None:
            return [*out, self._add(Finding.bad("partitions", "the cluster has no partition", "ask the admins"))]
        nodes = self.run.partition_nodes()
        gpus = sorted({n.gpus for n in nodes})
        summary = ", ".join(
            f"{n.name} {n.cpus} CPUs {n.memory_mb // 1024} GiB {n.gres or 'no GRES'}" for n in nodes[:4]
        )
        if len(nodes) > 4:
            summary += f", … ({len(nodes)} nodes)"
        why = self.run.partition_why
        out.append(
            self._add(
                Finding.good(
                    "partition", f"{self.run.partition} ({why}; {len(nodes)} nodes)", f"sinfo/scontrol: {summary}"
                )
            )
        )
        if gpus == [0] or not gpus:
            out.append(
                self._add(
                    Finding.warn(
                        "gres",
                        f"no node of partition `{self.run.partition}` advertises GPU GRES",
                        "ask the admins for `Gres=gpu:N` on the nodes, or set gpus_per_node by hand",
                    )
                )
            )
        elif len(gpus) > 1:
            out.append(
                self._add(
                    Finding.warn(
                        "gres",
                        f"nodes of `{self.run.partition}` differ in GPU count ({', '.join(map(str, gpus))})",
                        "use a partition with identical nodes, or set gpus_per_node to the smallest",
                    )
                )
            )
        return out

    # -- directive ----------------------------------------------------------------------------------

    def _test_only(self, *flags: str) -> str | None:
        """None if Slurm would accept a one-node job with these flags, else its reason."""
        args = ["--nodes=1", "--time=1"]
        if self.run.partition:
            args.append(f"--partition={self.run.partition}")
        return self.client.test_submit([*args, *flags])

    def probe_directive(self) -> list[Finding]:
        """Whether sbatch accepts ``--gpus-per-node`` or only ``--gres=gpu:N`` (and ``--segment``)."""
        try:
            gpn = self._test_only("--gpus-per-node=1")
            gres = self._test_only("--gres=gpu:1")
            segment = self._test_only("--segment=1")
        except SlurmError as exc:
            self.run.directive_evidence = str(exc)
            return [self._add(Finding.bad("directive", str(exc), "check sbatch and slurmctld"))]
        self.run.gpus_per_node_directive = gpn is None
        self.run.gres_directive = gres is None
        self.run.segment_directive = segment is None
        out: list[Finding] = []
        if gpn is None:
            self.run.directive_evidence = "sbatch --test-only accepted --gpus-per-node=1"
            out.append(self._add(Finding.good("directive", "--gpus-per-node accepted", self.run.directive_evidence)))
        elif gres is None:
            self.run.directive_evidence = (
                f"sbatch --test-only rejected --gpus-per-node=1 ({gpn}) and accepted --gres=gpu:1"
            )
            out.append(self._add(Finding.good("directive", "GRES only (--gres=gpu:N)", self.run.directive_evidence)))
        else:
            self.run.directive_evidence = (
                f"sbatch --test-only rejected --gpus-per-node=1 ({gpn}) and --gres=gpu:1 ({gres})"
            )
            out.append(
                self._add(
                    Finding.bad(
                        "directive",
                        "sbatch rejects both --gpus-per-node and --gres=gpu",
                        "ask the admins how GPUs are requested here; set default_sbatch_directives by hand",
                        evidence=self.run.directive_evidence,
                    )
                )
            )
        seg = "accepted" if segment is None else f"rejected ({segment})"
        out.append(self._add(Finding.good("segment", f"--segment {seg}", "sbatch --test-only --segment=1")))
        return out

    # -- MPI plugins (part of the directive step) -------------------------------------------------------

    def probe_mpi(self, also: tuple[str, ...] = ()) -> list[Finding]:
        """`srun --mpi=list`, then `srun --test-only --mpi=X` for pmix/pmi2 (and ``also``): what loads here."""
        lister = getattr(self.client, "mpi_list", None)
        tester = getattr(self.client, "test_mpi", None)
        if lister is None or tester is None:  # a client without srun (test doubles): nothing to say
            return []
        args = ["--nodes=1", "--time=1", *([f"--partition={self.run.partition}"] if self.run.partition else [])]
        try:
            listing = lister()
            self.run.mpi = probe_mpi(listing, lambda name: tester(name, args), also)
        except SlurmError as exc:
            return [self._add(Finding.warn("mpi_plugin", f"srun --mpi=list failed: {exc}", "check srun on PATH"))]
        mpi = self.run.mpi
        return [self._add(Finding.good("mpi_plugin", f"{mpi.best} (loads: {', '.join(mpi.usable)})", mpi.evidence()))]

    # -- account ------------------------------------------------------------------------------------

    def probe_account(self) -> list[Finding]:
        """The user's default account (Slurm accounting); its absence is a finding, not a failure."""
        user = os.environ.get("USER") or os.environ.get("LOGNAME") or "root"
        try:
            found = self.client.accounts(user)
            why = f"no association for user {user}" if found is not None else "no Slurm accounting here"
        except SlurmError as exc:
            found, why = None, str(exc)
        accounts = found or []
        if accounts:
            self.run.account = accounts[0]
            more = f" (also: {', '.join(accounts[1:4])})" if len(accounts) > 1 else ""
            return [self._add(Finding.good("account", accounts[0] + more, f"sacctmgr show assoc user={user}"))]
        return [
            self._add(
                Finding.note(
                    "account",
                    "no default account found",
                    why,
                    fix="enter the account your jobs should charge (or leave it empty if the cluster needs none)",
                )
            )
        ]

    # -- compute node -------------------------------------------------------------------------------

    def probe_node(self) -> list[Finding]:
        """Submit a small probe job to one node of the partition, wait for it, read its JSON document."""
        opts = self.options
        workdir = opts.workdir or default_workdir()
        try:
            workdir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return [self._add(Finding.bad("node", f"cannot create {workdir}: {exc}", "pass a writable --workdir"))]
        tag = uuid.uuid4().hex[:8]
        script = workdir / f"probe-{tag}.sh"
        output = workdir / f"probe-{tag}.out"
        directives = ["--job-name=srt-tui-probe", "--nodes=1", "--ntasks=1", "--time=5"]
        if self.run.partition:
            directives.append(f"--partition={self.run.partition}")
        gpus = min((n.gpus for n in self.run.partition_nodes()), default=0)
        if gpus and self.run.gres_directive is not False:
            directives.append(f"--gres=gpu:{gpus}")
        if opts.stop is not None and opts.stop.is_set():  # stopped while the earlier probes ran: submit nothing
            return [self._add(Finding.warn("node", "stopped before the probe job was submitted", _AGAIN))]
        body = render_node_script(opts.paths, opts.extra_path, opts.tool_timeout)
        shebang, _, rest = body.partition("\n")
        script.write_text(shebang + "\n" + "".join(f"#SBATCH {d}\n" for d in directives) + rest)
        try:
            pairs = [(d[2:].partition("=")[0], d.partition("=")[2] or None) for d in directives]
            job_id = self.client.submit(script, workdir, output=str(output), directives=pairs)
        except SlurmError as exc:
            return [
                self._add(
                    Finding.bad(
                        "node",
                        f"the probe job was not accepted: {exc}",
                        "check the partition, account and limits; run `sbatch --test-only` by hand",
                    )
                )
            ]
        self.run.node_job = job_id
        try:
            state = self._wait(job_id, opts.node_timeout)
        except BaseException:  # the wait itself failed (its progress line could not be written): the job it waited
            self._cancel(job_id)  # for must not outlive it, PENDING with no one to read what it finds
            raise
        text = output.read_text(errors="replace") if output.exists() else ""
        if state == STOPPED:
            fate = self._cancel(job_id)
            return [self._add(Finding.warn("node", f"probe job {job_id} stopped before it ended {fate}", _AGAIN))]
        pending = self._waiting is not None and self._waiting.state == "PENDING"
        holders, now = self._holders if pending else None, time.time()
        if state == BLOCKED and holders is not None:  # said at once: waiting on could not change the outcome
            fate = self._cancel(job_id)
            error = f"probe job {job_id} would wait past --node-timeout {opts.node_timeout:g} s for nodes: "
            return [self._add(Finding.bad("node", error + f"{holders.says(now)} {fate}", holders.fix(now)))]
        if state is None:
            fate = self._cancel(job_id)
            last = self._waiting
            why = f", {last.state} ({last.reason_worth_showing})" if last and last.reason_worth_showing else ""
            why += f": {holders.says(now)}" if holders is not None else ""
            return [
                self._add(
                    Finding.bad(
                        "node",
                        f"probe job {job_id} did not finish within {opts.node_timeout:g} s{why} {fate}",
                        holders.fix(now)
                        if holders is not None
                        else pending_fix(last.reason if last and last.state == "PENDING" else "", self.run.partition),
                    )
                )
            ]
        try:
            report = parse_node_output(text)
        except ValueError as exc:
            tail = " / ".join(text.strip().splitlines()[-2:])
            return [
                self._add(
                    Finding.bad(
                        "node",
                        f"probe job {job_id} ended {state}: {exc}",
                        "read " + str(output),
                        evidence=tail,
                    )
                )
            ]
        self.run.node = report
        for path in (script, output):
            path.unlink(missing_ok=True)
        return self._node_findings(report, job_id)

    def _cancel(self, job_id: str) -> str:
        """Cancel the probe job this run submitted; says how that went, for its finding."""
        try:
            self.client.cancel(job_id)
        except SlurmError as exc:
            return f"(not cancelled: {exc}; `scancel {job_id}` removes it)"
        self.run.node_job_cancelled = True
        return "(cancelled): no node facts"

    def _look_at_holders(self, job: JobState, looked: float | None) -> float | None:
        """While the probe job waits for nodes (Slurm's reason), which of the operator's own running jobs hold the
        partition's nodes (`self._holders`), looked at again every HOLDERS_EVERY s; when it last looked."""
        now = time.monotonic()
        if job.reason not in WAITS_FOR_NODES:  # held, or a down partition: the holders seen before are not why
            self._holders = None
            return looked
        if looked is not None and now - looked < HOLDERS_EVERY:
            return looked
        try:
            mine = self.client.user_jobs(getpass.getuser())
        except SlurmError:  # the wait is still said with Slurm's reason; the next look may answer
            return now
        self._holders = holders_of(self.run.partition or "", self.run.partition_nodes(), mine, job.job_id)
        return now

    def _wait(self, job_id: str, timeout: float) -> str | None:
        """Poll the job until it ends; its final state, STOPPED when the operator stopped waiting, BLOCKED when the
        operator's own jobs hold every node past the timeout, or None on timeout. While it waits, the progress says
        the job's state, its reason, how long it has waited, and which of the operator's jobs hold the nodes."""
        start = time.monotonic()
        deadline = start + timeout
        delay = 0.3
        stop = self.options.stop
        looked: float | None = None
        while time.monotonic() < deadline:
            if stop is not None and stop.is_set():
                return STOPPED
            try:
                job = self.client.query([job_id]).get(job_id)
            except SlurmError:
                job = None
            if job is not None and job.is_terminal:
                return job.state
            if job is not None:  # which job, and why it waits: the operator can look it up or cancel it
                self._waiting = job
                looked = self._look_at_holders(job, looked) if job.state == "PENDING" else looked
                holders = self._holders if job.state == "PENDING" else None
                why = f" ({job.reason_worth_showing})" if job.reason_worth_showing else ""
                how = "" if stop is not None else f" · scancel {job_id} stops it"  # (the caller has its key for it)
                waited = f", waited {time.monotonic() - start:.0f} s"
                held = f": {holders.says(time.time())}" if holders is not None else ""
                self.progress("node", "running", f"job {job_id} {job.state}{why}{waited}{held}{how}")
                if holders is not None and not holders.in_time(time.time() + deadline - time.monotonic()):
                    return BLOCKED
            if stop is not None:
                stop.wait(delay)
            else:
                time.sleep(delay)
            delay = min(delay * 1.5, 3.0)
        return None

    def _node_findings(self, report: NodeReport, job_id: str) -> list[Finding]:
        out: list[Finding] = []
        where = f"on {report.node} (job {job_id})"
        tool = report.gpu_tool
        if tool is not None:
            names = sorted({g.name for g in tool.gpus})
            out.append(
                Finding.good("gpu tool", f"{tool.tool}: {len(tool.gpus)} × {', '.join(names)}", f"answered {where}")
            )
        for answer in report.tools:
            if answer.found and not answer.answered:
                why = "timed out" if answer.timed_out else f"exit codes {list(answer.exit_codes)}, no GPU listed"
                out.append(
                    Finding.warn(
                        f"gpu tool {answer.tool}",
                        f"{answer.tool} is on PATH {where} but did not answer ({why})",
                        "check the GPU driver on the node",
                        evidence=(answer.outputs[0][:200] if answer.outputs else ""),
                    )
                )
        if tool is None:
            out.append(
                Finding.warn(
                    "gpu tool",
                    f"no GPU tool answered {where} (tried nvidia-smi, amd-smi, rocm-smi)",
                    "load the GPU driver/tool module in the job environment, or add its directory to the extra PATH",
                )
            )
        present = [d for d, ok in report.devices.items() if ok]
        out.append(Finding.good("devices", ", ".join(present) or "no /dev/kfd, no /dev/dri", where))
        with_ip = [f"{i.name} {','.join(i.ipv4)}" for i in report.interfaces if i.ipv4]
        if report.ip_available:
            out.append(Finding.good("interfaces", "; ".join(with_ip) or "none with IPv4", f"ip -j addr {where}"))
        else:
            out.append(
                Finding.warn(
                    "interfaces",
                    f"`ip` is not available {where}",
                    "install iproute2 on the nodes, or set network_interface by hand",
                    evidence="names from /sys/class/net: " + ", ".join(i.name for i in report.interfaces),
                )
            )
        pyxis = "pyxis flags available" if report.pyxis else "no pyxis (srun has no --container-image)"
        out.append(Finding.good("pyxis", pyxis, f"srun --help {where}"))
        for path in report.paths:
            if path.exists:
                out.append(Finding.good(f"path {path.path}", "exists", where))
            elif path.path in self.options.unread_paths:
                out.append(
                    Finding.warn(
                        f"path {path.path}",
                        f"{path.path} does not exist {where}",
                        "only a job whose engine loads this model reads it (the mocker reads none): fix it before "
                        "running one; `srt-tui doctor -f RECIPE` checks a recipe's model",
                    )
                )
            else:
                out.append(
                    Finding.bad(
                        f"path {path.path}",
                        f"{path.path} does not exist {where}",
                        "use a path on the shared file system that compute nodes mount",
                    )
                )
        for finding in out:
            self._add(finding)
        return out


def _status(findings: list[Finding]) -> str:
    return worst(findings)


def run_probes(options: ProbeOptions, progress: Progress = _no_progress, client: SlurmClient | None = None) -> ProbeRun:
    """Run every probe in order; a probe that cannot run (Slurm unreachable) is reported as skipped."""
    prober = Prober(options, client, progress)
    steps: dict[str, Callable[[], list[Finding]]] = {
        "slurm": prober.probe_slurm,
        "partitions": prober.probe_partitions,
        # the MPI plugins ride on the directive step (both are srun/sbatch `--test-only` questions)
        "directive": lambda: [*prober.probe_directive(), *prober.probe_mpi(options.mpi_also)],
        "account": prober.probe_account,
        "node": prober.probe_node,
    }
    for step, _label in STEPS:
        if options.stop is not None and options.stop.is_set():  # the operator stopped: end with what was found
            progress(step, "skipped", "stopped")
            continue
        if step == "node" and not options.probe_node:
            progress(step, "skipped", "not requested")
            continue
        if step != "slurm" and not prober.run.reachable:
            progress(step, "skipped", "Slurm is not reachable")
            continue
        progress(step, "running", "")
        try:
            found = steps[step]()
        except Exception as exc:  # a probe bug must still end as a finding, never a crash
            found = [prober._add(Finding.bad(step, f"probe failed: {type(exc).__name__}: {exc}", "report this bug"))]
        detail = next((f.error for f in found if f.error), found[0].value if found else "")
        progress(step, _status(found), detail)
    return prober.run


def with_findings(run: ProbeRun, extra: list[Finding]) -> ProbeRun:
    """A copy of ``run`` with more findings (used by doctor)."""
    return replace(run, findings=[*run.findings, *extra])
