"""Checks of the keys around Dynamo: `dynamo:` (install source, planes), `infra:` (NATS/etcd placement)
and the simulation parameters of Dynamo's mocker. Each key is honoured, or refused with the reason."""

from __future__ import annotations

from srt_tui.core.engines import get_engine
from srt_tui.core.errors import Problem
from srt_tui.core.frontends.dynamo import WHEELHOUSE
from srt_tui.core.frontends.routers.base import Router
from srt_tui.core.spec.resolved import ResolvedJob


def dynamo_problems(job: ResolvedJob, router: Router) -> list[Problem]:
    """Findings for `dynamo:`, `infra:` and the Dynamo mocker's `engine.config`."""
    recipe = job.recipe
    out: list[Problem] = []
    infra = recipe.infra
    if not router.infrastructure:
        for key in sorted(infra.model_fields_set):
            if getattr(infra, key) not in (None, False):
                out.append(
                    Problem(
                        f"infra.{key}",
                        f"{router.name} needs no NATS/etcd, so there is nothing to place or tune",
                        f"remove infra.{key}, or use frontend.type: dynamo",
                    )
                )
    if router.worker_launch != "dynamo":
        if recipe.dynamo.model_fields_set:
            out.append(
                Problem(
                    "dynamo",
                    f"has no effect: {router.name} runs no Dynamo workers (no ai-dynamo install, no planes)",
                    "remove the dynamo: block, or use frontend.type: dynamo",
                    severity="warning",
                )
            )
        return out
    spec = recipe.dynamo
    if spec.install and spec.wheel is not None and not job.profile.srtctl_root and job.container_runtime != "none":
        out.append(
            Problem(
                "dynamo.wheel",
                "staged wheels live in srtctl's wheelhouse/dynamo, and the profile does not say where srtctl is",
                "set srtctl_root in the profile, or use dynamo.version (from PyPI) / dynamo.hash (built from source)",
            )
        )
    elif spec.install and spec.wheel is not None and job.container_runtime != "none" and not _wheelhouse(job):
        out.append(
            Problem(
                "dynamo.wheel",
                f"{job.profile.srtctl_root}/wheelhouse/dynamo does not exist, so nothing is mounted at "
                f"{WHEELHOUSE} and the install of {spec.source} will fail (srtctl's batch script stages the "
                "wheels there first; srt-tui does not download them)",
                "stage them with srtctl's `python src/srtctl/runtime_scripts/dynamo_wheels.py prefetch` "
                "(DYNAMO_VERSION set) in the checkout, or use dynamo.version",
                severity="warning",
            )
        )
    if spec.install and job.container_runtime == "none":
        out.append(
            Problem(
                "dynamo.install",
                f"not done: engines run on the hosts (container_runtime: none), and srt-tui does not pip-install "
                f"into a host's Python; the nodes' own ai-dynamo runs instead of {spec.source}",
                "install ai-dynamo on the nodes (the job fails naming the log if it is missing), or set "
                "dynamo.install: false to say so",
                severity="warning",
            )
        )
    return out + get_engine(recipe.engine.type).dynamo_config_problems(recipe.engine.config)


def _wheelhouse(job: ResolvedJob) -> bool:
    """srtctl's staged wheelhouse is mounted (it exists under srtctl_root)."""
    return any(m.container == WHEELHOUSE for m in job.mounts)
