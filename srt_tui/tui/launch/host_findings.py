"""What this machine finds for a prepared job (`host_checks`: model and container paths, the programs and Python
modules a container-less plan starts), shared by the Topology step's Checks and the Submit step's request.

Asked in a thread worker (a path may sit on a hung Lustre/NFS mount), once per prepared job and launcher: the answer
is kept in `HostCache` (the wizard's state), so the Submit step shows what Topology asked for without asking again,
and an answer that comes while another step is shown reaches every step through the launch screen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from srt_tui.core.errors import Problem

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared
    from srt_tui.core.plan.host_programs import MissingProgram
    from srt_tui.core.spec.profile import Profile
    from srt_tui.slurm.preflight import PreflightCheck


@dataclass(frozen=True)
class HostFindings:
    """What this machine found for one prepared job and launcher: the programs and modules it lacks (the Submit
    step's `programs` rows) and `host_checks` (what `srt-tui preflight` and `apply` refuse), worst first."""

    missing: list[MissingProgram]
    checks: list[PreflightCheck]


class HostChecksDone(Message):
    """This machine's checks of ``prepared`` for ``launcher`` answered (run in a worker); the launch screen keeps the
    answer (`HostCache.answered`) and tells every step (`WizardStep.host_answered`)."""

    def __init__(self, prepared: Prepared, launcher: str, found: HostFindings) -> None:
        super().__init__()
        self.prepared = prepared
        self.launcher = launcher
        self.found = found


def find_on_host(prepared: Prepared, launcher: str) -> HostFindings:
    """`host_checks` and the programs a container-less plan lacks, worded for the TUI; blocking (a worker's): a check
    that raised reads as not checked, so a step never waits for ever (Submit checks again)."""
    from srt_tui.core.plan.host_programs import missing_programs
    from srt_tui.slurm.preflight import PreflightCheck, host_checks

    try:
        return HostFindings(missing_programs(prepared.plan), host_checks(prepared, launcher, face="tui"))
    except Exception as exc:  # an unforeseen OSError must not leave a step waiting for ever
        return HostFindings([], [PreflightCheck("paths", None, f"not checked: {type(exc).__name__}: {exc}")])


def default_launcher(profile: Profile, cloned: str | None, slurm_down: bool) -> str:
    """The launcher the Submit step chooses for the operator until they pick one: a clone's (``cloned``, where its
    job ran), else the profile's (`profile_launcher`, the rule `apply` follows)."""
    from srt_tui.slurm.submit import profile_launcher

    if cloned is not None:
        return "local" if cloned == "local" else "slurm"
    return profile_launcher(profile, slurm_answers=not slurm_down)


@dataclass
class HostCache:
    """The answers for the prepared job shown last, by launcher, and the launchers asked about: another job drops
    them (an answer about a job no longer shown is not kept)."""

    prepared: Prepared | None = None
    found: dict[str, HostFindings] = field(default_factory=dict)
    asking: set[str] = field(default_factory=set)

    def _about(self, prepared: Prepared) -> None:
        if prepared is not self.prepared:
            self.prepared, self.found, self.asking = prepared, {}, set()

    def answers(self, prepared: Prepared | None) -> dict[str, HostFindings]:
        """What answered for ``prepared``, by launcher (empty for another job)."""
        return self.found if prepared is not None and prepared is self.prepared else {}

    def ask(self, prepared: Prepared, launcher: str) -> bool:
        """Whether the caller should start the checks of ``prepared`` for ``launcher`` (they neither answered nor
        run); if so they are marked running."""
        self._about(prepared)
        if launcher in self.found or launcher in self.asking:
            return False
        self.asking.add(launcher)
        return True

    def running(self, prepared: Prepared | None, launcher: str) -> bool:
        """The checks of ``prepared`` for ``launcher`` were asked for and have not answered."""
        return prepared is not None and prepared is self.prepared and launcher in self.asking

    def answered(self, prepared: Prepared, launcher: str, found: HostFindings) -> bool:
        """Keep an answer about the job shown last; False (dropped) for another."""
        if prepared is not self.prepared:
            return False
        self.asking.discard(launcher)
        self.found[launcher] = found
        return True


def host_problems(checks: list[PreflightCheck]) -> list[Problem]:
    """The checks that did not pass as findings of a Checks list (the Topology step's): ✗ one that refuses the job
    (its fix as `host_checks` words it), ! one that could not run; in their order (`worst_first`)."""
    return [Problem(c.name, c.message, c.fix, severity="error" if c.blocks else "warning") for c in checks if not c.ok]
