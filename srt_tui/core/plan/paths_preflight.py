"""Preflight from the login node (srtctl's `preflight`): do the model and container paths exist?

srtctl uses an alias the profile lacks as a literal path; this is where such a path is checked before
a job waits in the queue only to fail on its first node. Registry images always pass: pyxis pulls them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.engines import get_engine
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


def check_paths(job: ResolvedJob) -> list[PathCheck]:
    """Model directory and container image of a resolved job, as the login node sees them."""
    out: list[PathCheck] = []
    model = job.model_path
    alias = job.recipe.model.path
    via = f"alias `{alias}` resolved to " if alias != model else ""
    engine = get_engine(job.recipe.engine.type)
    if not engine.reads_model(job_router(job).worker_launch):
        out.append(PathCheck("model-unused", "model.path", True, f"not read: the {engine.name} engine loads no model"))
    elif model.startswith("hf:"):
        out.append(PathCheck("model-hub", "model.path", True, f"{model} is downloaded by the job"))
    elif Path(model).is_dir():
        out.append(PathCheck("model-available", "model.path", True, f"{via}{model} exists"))
    else:
        why = "is not a directory" if Path(model).exists() else "does not exist on this node"
        out.append(
            PathCheck(
                "model-not-available",
                "model.path",
                False,
                f"{via}{model} {why}: pull or register the model, or fix the profile's model_paths",
            )
        )
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
