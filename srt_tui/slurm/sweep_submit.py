"""Submit every job of a sweep (or override) file as one group: each member checked first, its model and container
paths checked, then each submitted and marked with the group and the values it was swept with (job.json's `group`,
`group_member`, `group_values`).

Headless (no argparse, no printing): `srt-tui apply -f sweep.yaml` and the wizard's whole-sweep row both call it and
say the outcome their own way; progress reaches them through callbacks, run in the caller's thread.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from srt_tui.core.errors import Face, Problem, SrtError

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.slurm.client import SlurmClient
    from srt_tui.slurm.preflight import PreflightError
    from srt_tui.slurm.submit import Submission


@dataclass(frozen=True)
class Member:
    """One job of the file: its selector (`sweep[i]`), name, and its plan or why it is invalid."""

    selector: str
    name: str
    prep: Prepared | None
    problems: tuple[str, ...]


@dataclass(frozen=True)
class SweepCheck:
    """Every member of ``spec`` checked on one profile, and the values each sweep member was filled with (selector
    -> `{"osl": 8}`; none for an override file's variants)."""

    spec: str
    members: list[Member]
    values: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ready(self) -> list[tuple[Member, Prepared]]:
        """The members that can be submitted, with their plans."""
        return [(m, m.prep) for m in self.members if m.prep is not None]

    def refusal(self) -> SrtError | None:
        """Every invalid member's problems, each prefixed with its selector (nothing is submitted then); None when
        every member is valid."""
        if all(m.prep is not None for m in self.members):
            return None
        problems = [
            Problem(field="", message=f"{m.selector} ({m.name}): {line}")
            for m in self.members
            if m.prep is None
            for line in m.problems
        ]
        problems.append(Problem(field="", message=f"nothing submitted: every job of {self.spec} must be valid first"))
        return SrtError(problems)


def check_members(
    spec: str, jobs: list[tuple[str, Any]], profile: str | LoadedProfile | None, topology: str | None = None
) -> list[Member]:
    """Every member prepared as `dry-run -f spec:<selector>` would (``profile``: a name or path as `-p` takes it, or
    the wizard's loaded profile); the invalid ones keep their problems."""
    from srt_tui.core.api import choose_profile, prepare_job
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.core.spec.recipe import load_recipe

    out: list[Member] = []
    for selector, data in jobs:
        name = str(data.get("name", selector)) if isinstance(data, dict) else selector
        try:
            recipe, source = load_recipe(f"{spec}:{selector}")
            loaded = profile if isinstance(profile, LoadedProfile) else choose_profile(recipe, profile)
            prep = prepare_job(recipe, loaded, source, topology)
        except SrtError as exc:
            out.append(Member(selector, name, None, tuple(p.render() for p in exc.problems) or ("invalid",)))
            continue
        out.append(Member(selector, prep.plan.name, prep, ()))
    return _same_scripts_refused(out)


def check_sweep(
    spec: str,
    profile: str | LoadedProfile | None,
    topology: str | None = None,
    jobs: list[tuple[str, Any]] | None = None,
) -> SweepCheck:
    """The members of the file ``spec`` (``jobs``: as `file_jobs` read them already) checked, with their swept
    values (SrtError when the file itself cannot be read)."""
    from srt_tui.core.spec.recipe import file_jobs, file_sweep_values

    path = Path(spec)
    jobs = file_jobs(path) if jobs is None else jobs
    return SweepCheck(spec, check_members(spec, jobs, profile, topology), file_sweep_values(path))


def _same_scripts_refused(members: list[Member]) -> list[Member]:
    """A member whose launch script is an earlier member's but for the job's name is refused: it would run the same
    job again (the sweep fills its values only where nothing reads them, e.g. `description:`)."""
    seen: dict[str, Member] = {}
    out: list[Member] = []
    for m in members:
        if m.prep is None:
            out.append(m)
            continue
        script = m.prep.script.replace(m.prep.plan.name, "<name>")
        first = seen.setdefault(script, m)
        if first is m:
            out.append(m)
            continue
        why = (
            f"sweep: runs the same launch script as {first.selector} ({first.name}), only the name differs "
            "(fix: put the sweep's `{param}` in a field that changes the job: an engine arg, a benchmark key, …)"
        )
        out.append(Member(m.selector, m.name, None, (why,)))
    return out


def missing_paths(ready: list[tuple[Member, Prepared]], face: Face = "cli") -> PreflightError | None:
    """The refusal naming, per member, the model or container path this machine does not find (as `apply` refuses
    one job), or None: with one, nothing of the group is submitted. Several are counted on a first line, as one job's
    refusal counts them (`counted`): `4 checks fail: model.path, model.container in 2 members`."""
    from srt_tui.slurm.preflight import PreflightError, counted, path_checks

    failed = [(m, c) for m, prep in ready for c in path_checks(prep, face) if c.blocks]
    if not failed:
        return None
    problems = [Problem(field=f"{m.selector}: preflight {c.name}", message=c.message, hint=c.fix) for m, c in failed]
    members = len({m.selector for m, _ in failed})
    return PreflightError(counted(problems, [c for _, c in failed], f" in {members} members" if members > 1 else ""))


def new_group_id(spec: str) -> str:
    """A group id to type: the file's stem and a short random suffix (two applies of a file never share one)."""
    return f"{Path(spec).stem}-{secrets.token_hex(3)}"


@dataclass
class SweepOutcome:
    """What `submit_sweep` did: the members submitted (in order), those refused with why, and those not tried (after
    the refusal that stopped it)."""

    group: str
    submitted: list[tuple[Member, Prepared, Submission]] = field(default_factory=list)
    failed: list[tuple[Member, BaseException]] = field(default_factory=list)
    not_submitted: list[Member] = field(default_factory=list)

    @property
    def status(self) -> Literal["submitted", "partial", "error"]:
        """`submitted` every member, `partial` some, `error` none (as `apply --json` says it)."""
        if not self.failed and not self.not_submitted:
            return "submitted"
        return "partial" if self.submitted else "error"


#: called in the submitting thread after each member: (member, its plan, its submission)
OnSubmitted = Callable[[Member, "Prepared", "Submission"], object]
#: called in the submitting thread when a member is refused: (member, why)
OnFailed = Callable[[Member, BaseException], object]


def submit_sweep(
    ready: list[tuple[Member, Prepared]],
    group: str,
    values: dict[str, dict[str, Any]],
    *,
    launcher: str = "auto",
    output: Path | None = None,
    transport: str = "auto",
    preflight: bool = True,
    tags: list[str] | None = None,
    face: Face = "cli",
    waive_checks: bool = False,
    keep_going: bool = False,
    on_submitted: OnSubmitted | None = None,
    on_failed: OnFailed | None = None,
) -> SweepOutcome:
    """Submit ``ready`` in order as the group ``group``, each job.json marked with it, its selector, its swept
    ``values`` and ``tags``. A member refused stops the rest (`apply`'s way: they are `not_submitted`), or with
    ``keep_going`` is said and the others go on (the wizard's way). The first Slurm submission's client submits the
    others (Slurm is not pinged again). ``waive_checks``: past this machine's waivable checks, as the operator asked
    (`submit_prepared`). An interrupt (Ctrl+C) always stops, as a refusal does."""
    from srt_tui.slurm.submit import submit_prepared
    from srt_tui.state.jobindex import record_group

    outcome = SweepOutcome(group)
    client: SlurmClient | None = None
    for i, (m, prep) in enumerate(ready):
        try:
            sub = submit_prepared(prep, launcher, output, transport, preflight, client, face, waive_checks)
        except (Exception, KeyboardInterrupt) as exc:
            outcome.failed.append((m, exc))
            if on_failed is not None:
                on_failed(m, exc)
            if keep_going and not isinstance(exc, KeyboardInterrupt):
                continue
            outcome.not_submitted = [left for left, _ in ready[i + 1 :]]
            return outcome
        record_group(sub.job_dir, group, m.selector, tags, values.get(m.selector))
        outcome.submitted.append((m, prep, sub))
        client = sub.client or client
        if on_submitted is not None:
            on_submitted(m, prep, sub)
    return outcome
