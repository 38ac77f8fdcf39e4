"""Preflight from the login node (srtctl's `preflight`): do the model and container paths exist?

srtctl uses an alias the profile lacks as a literal path; this is where such a path is checked before
a job waits in the queue only to fail on its first node. Registry images always pass: pyxis pulls them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.engines import get_engine
from srt_tui.core.errors import did_you_mean
from srt_tui.core.frontends.routers import job_router
from srt_tui.core.spec.resolved import ResolvedJob


@dataclass(frozen=True)
class PathCheck:
    """One checked path: srtctl's code (`model-not-available` …), the field, and what was found."""

    code: str
    field: str
    ok: bool
    message: str


def is_registry_image(image: str) -> bool:
    """An image pyxis pulls (`nvcr.io/…:tag`, `docker://…`, `org/name:tag`), not a file to find."""
    return (
        not image.startswith(("/", "./", "../", "~")) and (":" in image or "/" in image) and not image.endswith(".sqsh")
    )


#: what the fix says of the model's path, by how `model.path` named it
_REGISTER = "pull or register the model, or fix the profile's model_paths"


def _model_words(job: ResolvedJob) -> tuple[str, str]:
    """(how `model.path` became the path checked, said before it; the fix when it is not found). A profile
    alias is `alias `x` resolved to …`; a relative path that is no alias is said as one, with what the launch
    resolves it against (the profile's `srtctl_root`, srtctl's checkout, else the directory srt-tui runs in, as
    srtctl's own working directory); a bare name the profile lacks is an alias it lacks, used as such a path."""
    written, model = job.recipe.model.path, job.model_path
    if written in (job.profile.model_paths or {}):
        return (f"alias `{written}` resolved to " if written != model else ""), _REGISTER
    if written.startswith(("$", "~")):
        return f"`{written}` expanded to ", "pull or register the model there, or fix model.path"
    if written == model or Path(written).is_absolute():
        return "", _REGISTER
    root = job.profile.srtctl_root
    base = "the profile's srtctl_root" if root else "the directory srt-tui runs in"
    where = "change the profile's srtctl_root" if root else "run srt-tui from the directory it is relative to"
    if "/" not in written and not written.startswith("."):  # a name: an alias the profile lacks
        close = did_you_mean(written, job.profile.model_paths or {})
        return (
            f"`{written}` is no model_paths alias of this profile, so it is a path from {base}: ",
            f"{close + ' ' if close else ''}add `{written}: <path>` under the profile's model_paths, or give "
            "model.path as an absolute path",
        )
    return (
        f"relative path `{written}` (no model_paths alias), from {base}: ",
        f"give model.path as an absolute path, or {where}",
    )


def reads_model_path(job: ResolvedJob) -> bool:
    """Do the job's workers read `model.path` (False: the mocker's, only a served name)?"""
    return get_engine(job.recipe.engine.type).reads_model(job_router(job).worker_launch)


def check_paths(job: ResolvedJob) -> list[PathCheck]:
    """Model directory and container image of a resolved job, as the login node sees them."""
    out: list[PathCheck] = []
    model = job.model_path
    via, fix = _model_words(job)
    engine = get_engine(job.recipe.engine.type)
    if not reads_model_path(job):
        out.append(PathCheck("model-unused", "model.path", True, f"not read: the {engine.name} engine loads no model"))
    elif model.startswith("hf:"):
        out.append(PathCheck("model-hub", "model.path", True, f"{model} is downloaded by the job"))
    elif Path(model).is_dir():
        out.append(PathCheck("model-available", "model.path", True, f"{via}{model} exists"))
    else:
        why = "is not a directory" if Path(model).exists() else "does not exist on this node"
        out.append(PathCheck("model-not-available", "model.path", False, f"{via}{model} {why}: {fix}"))
    image = job.container_image
    if image is None:
        return out
    if is_registry_image(image):
        out.append(PathCheck("container-registry", "model.container", True, f"{image} is pulled by pyxis"))
    elif Path(image).is_file():
        out.append(PathCheck("container-available", "model.container", True, f"{image} exists"))
    else:
        out.append(
            PathCheck(
                "container-not-available",
                "model.container",
                False,
                f"{image} does not exist on this node: import the image, or fix the profile's containers",
            )
        )
    return out
