"""Why a probe job waits for a node: which of the operator's own running jobs hold the partition's nodes, and until
when (their time limits), so the probes say so at once and stop waiting when no node can be free in time."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from srt_tui.monitor.cells import duration
from srt_tui.slurm.client import JobState, NodeInfo

#: Slurm's reasons for a pending job that waits for nodes to free up (not for a limit, a hold or a down partition)
WAITS_FOR_NODES: frozenset[str] = frozenset({"Resources", "Priority"})
#: words of a node state in which the node takes no new job, whatever ends (down, drained, powered off, …)
_TAKES_NO_JOB: tuple[str, ...] = ("DOWN", "DRAIN", "FAIL", "MAINT", "POWER", "NOT_RESPONDING", "INVAL", "FUTURE")
#: what a probe job needs after a node frees up: Slurm ends the holder (its KillWait) and schedules the probe
SLACK_S = 60
#: holders named one by one before `and N more`
_NAMED = 3


def takes_jobs(node: NodeInfo) -> bool:
    """Whether the node can run a new job once its own jobs end (not down, drained, failed, powered off)."""
    state = node.state.upper()
    return bool(state) and not any(word in state for word in _TAKES_NO_JOB)


@dataclass(frozen=True)
class Holders:
    """The operator's running jobs on the nodes of the partition a probe job waits for."""

    partition: str
    jobs: tuple[JobState, ...]
    #: nodes of the partition that take jobs, and how many of them these jobs hold
    usable: int
    held: int
    total: int
    #: Unix time the first node can be free of these jobs by their time limits; None: one without a limit
    #: holds every node (nothing frees one), or they do not hold every node
    frees_at: float | None

    @property
    def all_held(self) -> bool:
        """Every node that takes jobs runs one of these: nothing but their end frees one."""
        return self.usable > 0 and self.held == self.usable

    def _who(self) -> str:
        named = ", ".join(f"{j.job_id} ({j.name})" if j.name else j.job_id for j in self.jobs[:_NAMED])
        more = f" and {len(self.jobs) - _NAMED} more" if len(self.jobs) > _NAMED else ""
        return f"your job {named}" if len(self.jobs) == 1 else f"your jobs {named}{more}"

    def _verb(self) -> str:
        return "holds" if len(self.jobs) == 1 else "hold"

    def says(self, now: float) -> str:
        """`your job 12 (mocker-1p1d) holds all 3 nodes of partition gpu; its time limit ends in 58m05s`."""
        where = f"partition {self.partition}"
        if not self.all_held:
            return f"{self._who()} {self._verb()} {self.held} of the {self.total} nodes of {where}"
        if self.usable == self.total:
            head = f"{self._who()} {self._verb()} all {self.total} nodes of {where}"
        else:
            down = self.total - self.usable
            head = (
                f"{self._who()} {self._verb()} the {self.usable} nodes of {where} that take jobs "
                f"({down} of {self.total} {'is' if down == 1 else 'are'} down or drained)"
            )
        if self.frees_at is None:
            return f"{head}, and no time limit frees a node"
        left = duration(max(0.0, self.frees_at - now))
        if len(self.jobs) == 1:
            return f"{head}; its time limit ends in {left}"
        return f"{head}; by their time limits the first node frees in {left}"

    def in_time(self, deadline: float) -> bool:
        """Whether a node can be free of these jobs (their time limits) early enough for a probe job waiting until
        ``deadline`` (Unix time) to run: False only when they hold every node that takes jobs and free none in time
        (jobs of others could hold them longer still, never shorter)."""
        if not self.all_held:
            return True
        return self.frees_at is not None and self.frees_at + SLACK_S <= deadline

    def fix(self, now: float) -> str:
        """What the operator can do: cancel them, skip the probe job, or wait long enough."""
        ids = " ".join(j.job_id for j in self.jobs)
        them = "it" if len(self.jobs) == 1 else "them"
        out = f"cancel {them} (`srt-tui cancel {ids}`) and probe again, or skip the probe job with --no-node"
        if self.frees_at is not None:
            wait = math.ceil((self.frees_at - now + SLACK_S) / 60) * 60
            out += f", or wait for {them} with --node-timeout {wait}"
        return out


#: Slurm's reasons for a pending job that an administrator, not time, has to lift (a down partition or node)
_DOWN: frozenset[str] = frozenset({"PartitionDown", "PartitionInactive"})
_NODES_OUT: frozenset[str] = frozenset({"ReqNodeNotAvail", "NodeDown", "BadConstraints", "Reservation"})
_NOT_ALLOWED: frozenset[str] = frozenset({"AccountNotAllowed", "QOSNotAllowed", "InvalidAccount", "InvalidQOS"})
#: what the fix is when the job simply waits for a node (or Slurm gave no reason yet)
BUSY_FIX = "the partition may be busy: retry later or choose an idle partition"


def pending_fix(reason: str, partition: str | None) -> str:
    """The fix for a probe job that did not start in time, by Slurm's reason class: a hold is lifted by whoever
    held it, a down partition or unavailable node by another partition or the admins, a limit by the account's
    other jobs; only waiting for nodes (`Resources`, `Priority`, no reason) is "the partition may be busy"."""
    head = reason.split(",")[0].split("(")[0].strip()  # `ReqNodeNotAvail, UnavailableNodes:n1` → ReqNodeNotAvail
    where = f"partition {partition}" if partition else "the partition"
    other = "probe another partition with --partition, or skip the probe job with --no-node"
    if head in ("", "None") or head in WAITS_FOR_NODES:
        return BUSY_FIX
    if head == "JobHeldUser":
        return (
            "something holds your new jobs (JobHeldUser: a user hold, `sbatch --hold` or `scontrol uhold`): find "
            f"what holds them, then probe again, or {other}"
        )
    if head == "JobHeldAdmin":
        return f"a Slurm administrator holds jobs here (JobHeldAdmin): ask them why, or {other}"
    if head in _DOWN:
        return f"{where} is down or inactive ({head}, `sinfo -p {partition or '<name>'}`): {other}, or ask the admins"
    if head in _NODES_OUT:
        return f"the nodes of {where} it needs are unavailable ({head}: down, drained or reserved, `sinfo -R`): {other}"
    if head in _NOT_ALLOWED:
        return f"your account or QOS may not use {where} ({head}): ask the admins which you may use, or {other}"
    if head.startswith(("Assoc", "QOS")) or head.endswith("Limit"):
        return (
            f"a limit of your account, QOS or {where} holds it ({head}, `sacctmgr show assoc user=$USER`): wait for "
            f"your other jobs to end, or {other}"
        )
    return f"Slurm keeps it pending for {head} (squeue(1), JOB REASON CODES): {other}"


def _ends_at(job: JobState) -> float:
    """When Slurm ends a running job by its time limit (Unix time); infinity without a limit or a start time."""
    if job.start_time is None or job.time_limit is None:
        return math.inf
    return float(job.start_time + job.time_limit * 60)


def holders_of(partition: str, nodes: Sequence[NodeInfo], mine: Sequence[JobState], probe_id: str) -> Holders | None:
    """The operator's running jobs (``mine``, not the probe job itself) on the partition's ``nodes``; None when they
    hold none of the nodes that take jobs."""
    usable = [n.name for n in nodes if takes_jobs(n)]
    running = [j for j in mine if j.job_id != probe_id and j.state == "RUNNING" and set(j.nodes) & set(usable)]
    held = [n for n in usable if any(n in j.nodes for j in running)]
    if not held:
        return None
    frees: float | None = None
    if len(held) == len(usable):  # a node frees when the last of these jobs on it ends; the first such node counts
        first = min(max(_ends_at(j) for j in running if n in j.nodes) for n in usable)
        frees = None if math.isinf(first) else first
    return Holders(partition, tuple(running), len(usable), len(held), len(nodes), frees)
