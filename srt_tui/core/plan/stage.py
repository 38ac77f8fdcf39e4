"""What every stage of `build_plan` reads: the resolved job, its engine and router adapters and the facts
derived from them once (served name, head node, Dynamo or not), and how a step's environment is merged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from srt_tui.core import placeholders as ph
from srt_tui.core.engines.base import Engine
from srt_tui.core.frontends.routers.base import Router
from srt_tui.core.plan.model import ProcessPlan
from srt_tui.core.spec.resolved import ResolvedJob
from srt_tui.core.spec.secrets import secret_ref

#: (scope, its pairs): a step's environment in merge order (later wins)
Scopes = list[tuple[str, Iterable[tuple[str, str]]]]


@dataclass(frozen=True)
class Stage:
    """The inputs of each planning stage, computed once by `build_plan`."""

    job: ResolvedJob
    engine: Engine
    router: Router
    #: the model name clients ask for
    served: str
    #: the first worker node: routers and the benchmark run there
    head: int
    #: workers start through Dynamo (its frontend discovers them)
    dyn: bool
    #: Dynamo workers: health, metrics and control on their system port
    system_port: bool
    global_env: dict[str, str]
    #: shell that installs ai-dynamo inside each step, when the recipe asks for it
    install: str | None


def split_env(
    job: ResolvedJob, scoped: Scopes, managed: Iterable[tuple[str, str]] = ()
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """A process's env from its scopes in order (later wins), then srt-tui's own values.

    Returns (public pairs, secret refs): a declared secret keeps the value of the scope that set it
    last, read at run time from that scope's `secrets.env` entry, so roles never share one value.
    """
    merged: dict[str, tuple[str, str | None]] = {}
    for scope, pairs in scoped:
        for k, v in pairs:
            merged[k] = (v, scope)
    for k, v in managed:
        merged[k] = (v, None)
    public = tuple((k, v) for k, (v, scope) in merged.items() if scope is None or k not in job.secret_names)
    refs = tuple(
        (k, secret_ref(scope, k)) for k, (_, scope) in merged.items() if scope is not None and k in job.secret_names
    )
    return public, refs


def control_url(worker: ProcessPlan, system_port: bool) -> str:
    """Where a worker leader answers control requests: its system server (Dynamo) or its own HTTP port."""
    if system_port and "sys" in worker.ports:
        return ph.url(worker.node_index, worker.ports["sys"])
    return worker.url or ""


def installs(job: ResolvedJob) -> bool:
    """Is ai-dynamo installed at job start: asked for, and the steps run in containers (validate warns otherwise)."""
    return job.recipe.dynamo.install and job.container_runtime != "none"
