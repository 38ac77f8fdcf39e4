"""A recipe at a glance (engine, frontend, topology, model, benchmark) as label/value rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from srt_tui.core.spec.recipe import Recipe


def role_line(recipe: Recipe, role: str) -> str:
    """`2 workers × 4 GPUs (TP 4) on 1 node` for one role, its DP and EP too (`1 worker × 16 GPUs (TP 1 × DP 16 ·
    EP 16) on 2 nodes`), as the dry-run says it."""
    from srt_tui.core.text.role_lines import role_line as line

    return line(recipe, role)


def frontend_line(recipe: Recipe) -> str:
    """`sglang · router sglang-router`, or `sglang · no router: the worker serves port 8000`."""
    from srt_tui.core.frontends.routers import resolve_router
    from srt_tui.core.spec.resolved import topology_of

    topo = topology_of(recipe)
    workers = sum(recipe.roles[r].workers for r in recipe.active_roles())
    router = resolve_router(recipe.frontend.type, topo.disaggregated, workers)
    if router.worker_port == "public":
        return f"{recipe.frontend.type} · no router: the worker serves port {recipe.frontend.port}"
    written = recipe.frontend.type
    return written if written == router.name else f"{written} · router {router.name}"


def summary_rows(recipe: Recipe) -> list[tuple[str, str]]:
    """Rows for the recipe summary pane."""
    from srt_tui.core.spec.resolved import topology_of

    engine: str = recipe.engine.type
    if recipe.engine.connector:
        engine += f" · connector {recipe.engine.connector if isinstance(recipe.engine.connector, str) else 'custom'}"
    rows = [
        ("engine", engine),
        ("frontend", frontend_line(recipe)),
        ("topology", str(topology_of(recipe)) + ("  (disaggregated)" if topology_of(recipe).disaggregated else "")),
    ]
    for role in recipe.active_roles():
        rows.append((f"  {role}", role_line(recipe, role)))
    model = recipe.model.path
    if recipe.model.container:
        model += f" · container {recipe.model.container}"
    if recipe.model.precision:
        model += f" · {recipe.model.precision}"
    rows.append(("model", model))
    b = recipe.benchmark
    bench = b.type
    if b.isl is not None or b.osl is not None:
        bench += f" · isl {b.isl} osl {b.osl}"
    if b.concurrencies:
        bench += " · concurrency " + "x".join(str(c) for c in b.concurrency_list())
    rows.append(("benchmark", bench))
    end = job_end(b.type)
    if end:
        rows.append(("", end))
    return rows


def job_end(kind: str) -> str | None:
    """When a job with benchmark `kind` ends, as the benchmark type declares it."""
    from srt_tui.core.benchmark.types import job_end as declared

    return declared(kind)


def job_end_line(recipe: Recipe) -> str:
    """`benchmark sa-bench ends the job when done · …` for the Preview and Submit steps ("" if unknown)."""
    end = job_end(recipe.benchmark.type)
    return f"benchmark {end}" if end else ""
