"""Typed messages of the launch pipeline: ProfileChosen → RecipeChosen → PlanUpdated → JobSubmitted.

Tests assert on these through `run_test(message_hook=...)`, so they carry the objects they announce.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared
    from srt_tui.core.errors import Problem
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.core.spec.recipe import Recipe, RecipeSource
    from srt_tui.slurm.sweep_submit import SweepCheck
    from srt_tui.tui.launch.profile_facts import ProfileRow
    from srt_tui.tui.launch.recipe_catalog import RecipeEntry


@dataclass
class ProfilesLoaded(Message):
    """The profile worker finished listing user and shipped profiles: a row each."""

    rows: list[ProfileRow]


@dataclass
class ProfilesRead(Message):
    """The recipe reader process's profile rows, or None: it stopped before it sent them."""

    rows: list[ProfileRow] | None


@dataclass
class ProfileChosen(Message):
    """The operator confirmed a cluster profile."""

    loaded: LoadedProfile


@dataclass
class GivenProfileLoaded(Message):
    """The profile chosen before the wizard opened (`-p`, or srtctl's srtslurm.yaml) was read: it, or why not."""

    loaded: LoadedProfile | None
    error: str


@dataclass
class RecipesFound(Message):
    """A library scan read more folders: their entries, and files read of all (equal when it is done)."""

    scan: int
    entries: list[RecipeEntry]
    read: int
    total: int


@dataclass
class ReloadRecipes(Message):
    """The operator asked for the recipe library to be read again (`r` on the Recipe step)."""


@dataclass
class RecipesReloaded(Message):
    """A reload read ``roots`` again: every entry now under them (files added, changed and removed since)."""

    scan: int
    roots: list[Path]
    entries: list[RecipeEntry]


@dataclass
class RecipeOpened(Message):
    """A recipe file given by path ("open file…") was read, successfully or not: its rows (each job of a sweep or
    override file; empty: no file at ``path``)."""

    entries: list[RecipeEntry]
    path: str = ""


@dataclass
class RecipeChosen(Message):
    """The operator confirmed a recipe."""

    recipe: Recipe
    source: RecipeSource | None
    label: str


@dataclass
class PlanUpdated(Message):
    """The topology editor produced a new edited recipe and, when valid, its prepared plan."""

    recipe: Recipe | None
    prepared: Prepared | None
    problems: list[Problem]


@dataclass
class PlanConfirmed(Message):
    """The operator accepted the topology; the plan goes to preview."""

    prepared: Prepared


@dataclass
class PreviewAccepted(Message):
    """The operator read the preview and moves on to submission."""

    prepared: Prepared


@dataclass
class FileSaved(Message):
    """A dry-run directory or a recipe YAML was written; ``note``: said after its path (a sweep's member only)."""

    kind: str
    path: Path
    note: str = ""


@dataclass
class JobSubmitted(Message):
    """`submit_prepared` returned: the job exists (on Slurm or under the local launcher)."""

    job_id: str
    job_dir: Path
    launcher: str
    prepared: Prepared
    #: the checks of this machine it was sent past, as the operator asked (Ctrl+N twice): `path checks`, `program
    #: checks` or `path and program checks`; '' none
    waived: str = ""


@dataclass
class SubmitFailed(Message):
    """`submit_prepared` raised; `reason` is the operator-facing message."""

    reason: str


@dataclass
class SweepChosen(Message):
    """The operator chose a sweep file's row for all its jobs: ``spec`` the file, ``label`` its row."""

    spec: str
    label: str


@dataclass
class SweepChecked(Message):
    """Every member of a chosen sweep checked on the profile (in a worker): the check, or why the file cannot be
    read."""

    label: str
    check: SweepCheck | None
    error: str = ""


@dataclass
class SweepMemberSent(Message):
    """One member of a sweep being submitted was submitted (``job_id``) or refused (``reason``)."""

    selector: str
    name: str
    job_id: str = ""
    reason: str = ""


@dataclass
class SweepSubmitted(Message):
    """`submit_sweep` returned with at least one member submitted: the group, its jobs (id, directory), and the
    members refused (`selector name`, why)."""

    group: str
    jobs: list[tuple[str, Path]]
    failed: list[tuple[str, str]]
    launcher: str
    #: the first member's launch script (the Submit step asks before sending the same sweep again)
    script: str = ""
