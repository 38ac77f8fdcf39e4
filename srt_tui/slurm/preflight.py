"""Preflight: can this job run as asked? Checked before it is submitted, by `apply` and the wizard's Submit alike.

From this machine (`host_checks`): the model and container paths (srtctl's preflight) and, without a container, the
programs the job starts. Against the cluster that answers (`preflight`): partition, account, node count, GPUs per
node and time limit, each with a fix. A check that cannot run (no accounting, a listing refused) says so and does
not block: only what is known to fail blocks.
"""

from __future__ import annotations

import getpass
from collections.abc import Sequence
from dataclasses import dataclass, replace

from srt_tui.core.api import Prepared
from srt_tui.core.errors import Face, Problem, SrtError
from srt_tui.core.plan.host_programs import missing_programs
from srt_tui.core.plan.paths_preflight import PathCheck, check_paths
from srt_tui.slurm.client import NodeInfo, PartitionInfo, SlurmClient
from srt_tui.slurm.errors import SlurmError
from srt_tui.slurm.parse import parse_time_limit


@dataclass(frozen=True)
class PreflightCheck:
    """One check: ``ok`` True (fits), False (Slurm would refuse or never run it), None (could not check)."""

    name: str
    ok: bool | None
    message: str
    fix: str = ""
    evidence: str = ""
    #: the operator may submit past it when it fails (the Submit step's Ctrl+N twice; `apply --no-preflight` skips
    #: every check): what this machine found may not be what the job finds where it runs (`host_checks`)
    waivable: bool = False

    @property
    def blocks(self) -> bool:
        """Only a check that ran and failed stops a submission."""
        return self.ok is False


@dataclass(frozen=True)
class JobDemand:
    """What a job asks of Slurm (from the resolved job and its plan)."""

    nodes: int
    gpus_per_node: int
    partition: str | None
    account: str | None
    time_limit: str


def _minutes(limit: int | None) -> str:
    """A minute count the way Slurm writes a time limit (``1-00:00:00``, ``4:00:00``); None -> UNLIMITED."""
    if limit is None:
        return "UNLIMITED"
    days, rest = divmod(limit, 1440)
    text = f"{rest // 60}:{rest % 60:02d}:00"
    return f"{days}-{text.zfill(8)}" if days else text


def _partition(demand: JobDemand, parts: Sequence[PartitionInfo]) -> tuple[PreflightCheck, PartitionInfo | None]:
    names = ", ".join(p.name for p in parts) or "(none)"
    if demand.partition:
        part = next((p for p in parts if p.name == demand.partition), None)
        if part is None:
            return (
                PreflightCheck(
                    "partition",
                    False,
                    f"partition `{demand.partition}` does not exist",
                    f"use one of: {names} (recipe `slurm.partition` or the profile's `default_partition`)",
                    "scontrol show partition",
                ),
                None,
            )
        return PreflightCheck("partition", True, f"`{part.name}` exists ({part.state or 'state unknown'})"), part
    part = next((p for p in parts if p.is_default), None)
    if part is None:
        return (
            PreflightCheck(
                "partition",
                False,
                "no partition asked for and the cluster has no default partition",
                f"set `slurm.partition` in the recipe or `default_partition` in the profile: one of {names}",
            ),
            None,
        )
    return PreflightCheck("partition", True, f"`{part.name}` (the cluster's default)"), part


#: where the operator makes a job smaller, in the words of the face that shows the fix (the command line's flag, the
#: TUI's step): one fix, worded by who shows it
SMALLER_JOB: dict[Face, str] = {
    "cli": "choose a smaller topology (-t / the recipe's roles)",
    "tui": "choose fewer workers or nodes in the Topology step",
}


def _nodes(
    demand: JobDemand, part: PartitionInfo, nodes: Sequence[NodeInfo] | None, face: Face
) -> list[PreflightCheck]:
    out: list[PreflightCheck] = []
    size = part.total_nodes or len(part.nodes)
    if demand.nodes > size:
        out.append(
            PreflightCheck(
                "nodes",
                False,
                f"the job needs {demand.nodes} nodes; partition `{part.name}` has {size}",
                f"{SMALLER_JOB[face]}, or a partition with more nodes",
                f"scontrol show partition {part.name}: TotalNodes={size}",
            )
        )
    else:
        out.append(PreflightCheck("nodes", True, f"{demand.nodes} of {size} nodes of `{part.name}`"))
    if nodes is None:
        out.append(PreflightCheck("gpus", None, "GPUs per node not checked: the node listing failed"))
        return out
    members = [n for n in nodes if n.name in set(part.nodes) or part.name in n.partitions]
    if not members:
        out.append(PreflightCheck("gpus", None, f"GPUs per node not checked: no node listed for `{part.name}`"))
        return out
    fit = [n for n in members if n.gpus >= demand.gpus_per_node]
    most = max(n.gpus for n in members)
    gres = ", ".join(sorted({n.gres or "no GRES" for n in members}))
    wanted = min(demand.nodes, len(members))  # more nodes than the partition has is the nodes check's
    if len(fit) < wanted:
        out.append(
            PreflightCheck(
                "gpus",
                False,
                f"the job needs {demand.gpus_per_node} GPUs on each of {wanted} node(s); {len(fit)} node(s) of "
                f"`{part.name}` have that many (at most {most} per node)",
                f"set the profile's `gpus_per_node` to at most {most}, or use a partition with larger nodes",
                f"GRES: {gres}",
            )
        )
    else:
        out.append(PreflightCheck("gpus", True, f"{demand.gpus_per_node} GPUs per node fit ({gres})"))
    return out


def _time(demand: JobDemand, part: PartitionInfo) -> PreflightCheck:
    asked = parse_time_limit(demand.time_limit)
    if asked is None and demand.time_limit.strip().upper() not in ("UNLIMITED", "INFINITE"):
        return PreflightCheck("time", None, f"time limit `{demand.time_limit}` not checked: not a Slurm time")
    if part.max_time is not None and (asked is None or asked > part.max_time):
        return PreflightCheck(
            "time",
            False,
            f"time limit {demand.time_limit} exceeds partition `{part.name}`'s MaxTime {_minutes(part.max_time)}",
            f"set the time limit (recipe `slurm.time_limit` / profile `default_time_limit`) to at most "
            f"{_minutes(part.max_time)}",
            f"scontrol show partition {part.name}: MaxTime",
        )
    return PreflightCheck("time", True, f"{demand.time_limit} within MaxTime {_minutes(part.max_time)}")


def _account(demand: JobDemand, user: str, accounts: Sequence[str] | None, why: str) -> PreflightCheck | None:
    if not demand.account:
        return None
    if accounts is None:
        return PreflightCheck("account", None, f"account `{demand.account}` not checked: {why}")
    if demand.account not in accounts:
        return PreflightCheck(
            "account",
            False,
            f"user {user} has no association with account `{demand.account}`",
            f"use one of: {', '.join(accounts) or '(none)'} (recipe `slurm.account` / profile `default_account`)",
            f"sacctmgr show assoc user={user}",
        )
    return PreflightCheck("account", True, f"`{demand.account}` is one of {user}'s accounts")


def check_demand(
    demand: JobDemand,
    parts: Sequence[PartitionInfo],
    nodes: Sequence[NodeInfo] | None,
    user: str,
    accounts: Sequence[str] | None,
    accounts_why: str = "no accounting here",
    *,
    face: Face,
) -> list[PreflightCheck]:
    """The checks of ``demand`` against what Slurm listed (``nodes``/``accounts`` None: not listed), their fixes
    worded for ``face``."""
    check, part = _partition(demand, parts)
    out = [check]
    if part is not None:
        out += _nodes(demand, part, nodes, face)
        out.append(_time(demand, part))
    account = _account(demand, user, accounts, accounts_why)
    if account is not None:
        out.append(account)
    return out


def preflight(client: SlurmClient, demand: JobDemand, *, face: Face) -> list[PreflightCheck]:
    """Every check of ``demand`` against the cluster ``client`` reaches (partitions, nodes, accounts), their fixes
    worded for ``face`` (who shows them)."""
    try:
        parts = client.partitions()
    except SlurmError as exc:
        return [PreflightCheck("partition", None, f"partitions not checked: {exc}")]
    try:
        nodes: list[NodeInfo] | None = client.nodes()
    except SlurmError:
        nodes = None
    user = getpass.getuser()
    accounts: list[str] | None = None
    why = "no accounting here"
    if demand.account:
        try:
            accounts = client.accounts(user)
        except SlurmError as exc:
            why = str(exc)
    return check_demand(demand, parts, nodes, user, accounts, why, face=face)


class PreflightError(SrtError):
    """The cluster that answers cannot run this job as asked; nothing was submitted."""


def demand_of(prep: Prepared) -> JobDemand:
    """What a prepared job asks of Slurm."""
    job = prep.job
    return JobDemand(prep.plan.nodes, prep.plan.gpus_per_node, job.partition, job.account, job.time_limit)


def check_before_submit(client: SlurmClient, prep: Prepared, face: Face) -> list[PreflightCheck]:
    """Run the preflight; raise PreflightError naming every failed check and its fix (worded for ``face``); return
    the checks that could not run (the caller says so, they do not block)."""
    checks = preflight(client, demand_of(prep), face=face)
    refuse_failed(checks)
    return [c for c in checks if c.ok is None]


#: a missing model or container is fixed in the profile or on disk; the preflight command lists every path it checks.
#: Each face adds its escape hatch for a path only the compute nodes see (node-local NVMe): srtctl's --no-preflight,
#: the Submit step's Ctrl+N twice (with Slurm: the local launcher runs the job here, where the path is missing)
PATHS_FIX: dict[Face, str] = {
    "cli": "`srt-tui preflight -f RECIPE -p PROFILE` lists the paths checked from this machine; --no-preflight "
    "submits anyway when the path exists only on the compute nodes",
    "tui": "`srt-tui preflight -f RECIPE -p PROFILE` lists the paths checked from this machine; with Slurm (sbatch), "
    "Ctrl+N twice on the Submit step submits anyway when the path exists only on the compute nodes",
}
#: the way past a program or module this machine lacks, by face, and when it is right: the nodes may have what this
#: login node lacks; the local launcher's job, its own environment (the profile's bash preamble may activate another
#: Python)
PROGRAMS_ANYWAY: dict[Face, str] = {
    "cli": "; --no-preflight submits anyway when {when}",
    "tui": "; Ctrl+N twice on the Submit step submits anyway when {when}",
}


def is_path_check(check: PreflightCheck) -> bool:
    """A model or container path checked from this machine (`path_checks`), not a program or a Slurm check."""
    return check.name in ("model.path", "model.container")


def check_rank(check: PreflightCheck) -> tuple[int, int]:
    """Where a check stands in `worst_first`: one the operator cannot submit past, then one they may (`waivable`),
    then one that could not run, then a pass; within each, a program or module the job starts before a path (a path
    missing here is often on the compute nodes only; a job whose program is missing fails at once)."""
    severity = 3 if check.ok else 2 if check.ok is None else 1 if check.waivable else 0
    return severity, int(is_path_check(check))


def worst_first(checks: Sequence[PreflightCheck]) -> list[PreflightCheck]:
    """``checks`` in the one order every list of them shows (Submit, Topology's Checks, `apply`'s refusal): the worst
    first (`check_rank`), ties in their given order, so the problem that guarantees failure is never below the fold."""
    return sorted(checks, key=check_rank)


def failing_summary(checks: Sequence[PreflightCheck]) -> str:
    """`2 checks fail: programs, model.path`: how many of ``checks`` fail and their names, worst first ('' when none
    fails). Names only: each check's message is in the list below it, and a message cut to fit read `model.pat…`."""
    failing = worst_first([c for c in checks if c.blocks])
    if not failing:
        return ""
    count = f"{len(failing)} checks fail" if len(failing) > 1 else "1 check fails"
    return f"{count}: {', '.join(dict.fromkeys(c.name for c in failing))}"


def failing_line(checks: Sequence[PreflightCheck]) -> str:
    """One line for the top of a list (the Submit step's request, `srt-tui preflight`, `doctor -f`):
    `✗ 2 checks fail: programs, model.path` (`failing_summary`; '' when none fails)."""
    summary = failing_summary(checks)
    return f"✗ {summary}" if summary else ""


def path_check(check: PathCheck, face: Face = "cli") -> PreflightCheck:
    """One model or container path checked from this machine, as a preflight check: ✗ blocks (the operator may
    submit past it: the compute nodes may see it), the fix worded for ``face``."""
    if check.ok:
        return PreflightCheck(check.field, True, check.message, evidence=check.code)
    message = f"[{check.code}] {check.message}"
    return PreflightCheck(check.field, False, message, PATHS_FIX[face], check.code, waivable=True)


def path_checks(prep: Prepared, face: Face = "cli") -> list[PreflightCheck]:
    """The model and container paths of a job, checked from this machine (srtctl's preflight): ✗ blocks, as
    `srt-tui preflight` and srtctl's apply refuse them; the fix worded for ``face``."""
    return [path_check(c, face) for c in check_paths(prep.job)]


def host_checks(prep: Prepared, launcher: str, face: Face = "cli") -> list[PreflightCheck]:
    """What this machine can check of a job before it is submitted with ``launcher`` (`slurm`/`local`), the one list
    `apply` and the wizard's Submit step run: the model and container paths (`path_checks`) and the programs and
    Python modules a container-less plan starts. Each ✗ refuses the job; which the operator may submit past
    (`waivable`, `submit_prepared(waive_checks=True)`): with Slurm all of them, the nodes may have what this login
    node lacks; with the local launcher, which runs the job here, a module this shell's Python lacks (the job's own
    environment, its profile's bash preamble, may bring another), never a path or a program missing here. Worst first
    (`worst_first`), as every face lists them."""
    out = [c if launcher != "local" else replace(c, waivable=False) for c in path_checks(prep, face)]
    for missing in missing_programs(prep.plan):
        problem = missing.problem()
        waivable = launcher != "local" or bool(missing.module)
        when = "the job's own environment brings it" if launcher == "local" else "the job's nodes have it"
        hint = problem.hint + (PROGRAMS_ANYWAY[face].format(when=when) if waivable else "")
        out.append(PreflightCheck("programs", False, problem.message, hint, "container_runtime: none", waivable))
    return worst_first(out)


def refuse_failed(checks: list[PreflightCheck]) -> None:
    """Raise PreflightError naming every check that failed and its fix, worst first (nothing is submitted); several
    are counted and named on a first line (`failing_summary`), as the Submit step's request counts them."""
    failed = worst_first([c for c in checks if c.blocks])
    if not failed:
        return
    problems = [
        Problem(field=f"preflight {c.name}", message=c.message, hint=c.fix or "see `srt-tui doctor`") for c in failed
    ]
    raise PreflightError(counted(problems, failed))


def counted(problems: list[Problem], failed: Sequence[PreflightCheck], where: str = "") -> list[Problem]:
    """``problems`` (one per check of ``failed``) under the line counting and naming them (`failing_summary`,
    ``where`` after it: `in 2 members` of a sweep) when there are several: the first line of a refusal says it all."""
    if len(failed) < 2:
        return problems
    return [Problem(field="preflight", message=f"{failing_summary(failed)}{where}"), *problems]
