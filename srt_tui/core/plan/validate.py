"""Edit-time validation of a resolved job: every finding names its field and how to fix it.

Covers what srtctl leaves unchecked: GPUs per worker vs per node, node capacity, parallelism sizes that are not
whole numbers, TP size vs GPUs, P/D completeness, router/engine compatibility, and managed flags duplicated in
recipe args. The CLI and the TUI's Topology step show these same findings.
"""

from __future__ import annotations

import math
from typing import Any

from srt_tui.core.benchmark import benchmark_problems
from srt_tui.core.engines import get_engine
from srt_tui.core.engines.base import Engine, arg_int, flag_name, parallel_gpus, parallelism, size_args
from srt_tui.core.errors import Problem, count_problem
from srt_tui.core.frontends.choice import fronts, misfit
from srt_tui.core.frontends.nginx import frontend_layout
from srt_tui.core.frontends.routers import ROUTERS, job_router
from srt_tui.core.plan.gpu_fixes import fitting_gpus, gpus_fit
from srt_tui.core.plan.profiling import validate_profiling
from srt_tui.core.plan.validate_dynamo import dynamo_problems
from srt_tui.core.spec.frontend_types import FRONTEND_TYPES
from srt_tui.core.spec.profile import exporter_argv
from srt_tui.core.spec.recipe import Recipe, Role
from srt_tui.core.spec.resolved import ResolvedJob

_TOLERATED = {"model-path": ("/model", "/model/"), "model": ("/model", "/model/"), "host": ("0.0.0.0", "::")}


def clean_args(
    engine: Engine, role: Role, args: dict[str, Any], disaggregated: bool
) -> tuple[dict[str, Any], list[Problem]]:
    """Drop harmless duplicates of managed flags; report the ones that would override srt-tui's values."""
    kept: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, value in args.items():
        flag = flag_name(key)
        path = f"roles.{role}.args.{key}"
        if flag == "served-model-name" or flag not in engine.managed_flags or flag in engine.port_flags:
            kept[key] = value
            continue
        harmless = str(value) in _TOLERATED.get(flag, ()) or (
            flag == "disaggregation-mode" and disaggregated and value == role
        )
        if harmless:
            problems.append(
                Problem(
                    field=path,
                    message="duplicates a flag srt-tui sets; ignored",
                    hint="remove it from args",
                    severity="warning",
                )
            )
            continue
        problems.append(
            Problem(
                field=path,
                message=f"`--{flag}` is managed by srt-tui; a recipe value would silently override the planned one",
                hint=f"remove `{key}` from roles.{role}.args",
            )
        )
    return kept, problems


def _parallel_words(engine: Engine, args: dict[str, Any]) -> str:
    """`TP 2 × DP 2` (`TP 8 · DP attention 8`) as the flags say it, for messages about GPU counts."""
    return parallelism(engine, args).words(ep=False)


def served_name(job: ResolvedJob) -> str:
    """First `served-model-name` of prefill/agg/decode args, else the model directory name."""
    for role in ("prefill", "agg", "decode"):
        spec = job.recipe.roles.get(role)  # type: ignore[call-overload,unused-ignore]
        if spec is None:
            continue
        for key, value in spec.args.items():
            if flag_name(key) == "served-model-name" and value:
                return str(value)
    if job.recipe.model.served_name:
        return job.recipe.model.served_name
    return job.model_path.rstrip("/").rsplit("/", 1)[-1].removeprefix("hf:") or "model"


def validate(job: ResolvedJob) -> list[Problem]:
    """All findings (errors and warnings) for a resolved job, in field order."""
    recipe, gpn = job.recipe, job.gpus_per_node
    engine = get_engine(recipe.engine.type)
    out: list[Problem] = list(job.warnings)
    active = [s.role for s in job.shapes]
    disagg = "prefill" in active or "decode" in active
    if not active:
        out.append(Problem("roles", "no role has workers", "give roles.agg (or prefill and decode) workers"))
        return out
    if recipe.model.stage_dir:  # deviation model-not-staged
        out.append(
            Problem(
                "model.stage_dir",
                "not done: srt-tui does not copy the model to node-local storage yet; the workers read it from "
                "the shared /model (the same weights, a slower start)",
                "remove model.stage_dir, or run the job with srtctl where loading time matters",
                severity="warning",
            )
        )
    if "agg" in active and disagg:
        out.append(
            Problem(
                "roles",
                "cannot mix aggregated and disaggregated workers",
                "keep either roles.agg or roles.prefill + roles.decode",
            )
        )
    if disagg and not ("prefill" in active and "decode" in active):
        missing = "decode" if "prefill" in active else "prefill"
        out.append(
            Problem(
                f"roles.{missing}",
                f"disaggregated serving needs {missing} workers too",
                f"add roles.{missing}.workers, or use roles.agg for aggregated serving",
            )
        )
    for shape in job.shapes:
        role, g = shape.role, shape.gpus
        base = f"roles.{role}"
        asked = parallel_gpus(engine, recipe.roles[role].args)
        # a suggested GPU count must pass these same checks and hold the worker's parallelism
        fix = fitting_gpus(g, asked[0] if asked else 1, gpn, engine.multinode)
        if g < gpn and gpn % g:
            out.append(
                Problem(
                    f"{base}.gpus",
                    f"{g} GPUs per worker does not divide the node's {gpn} GPUs (it would leave GPUs stranded)",
                    f"use a divisor of {gpn}" + (f", e.g. {fix}" if fix is not None else ""),
                )
            )
        if g > gpn and g % gpn:
            out.append(
                Problem(
                    f"{base}.gpus",
                    f"{g} GPUs per worker is not a whole number of {gpn}-GPU nodes",
                    f"use {fix}" if fix is not None else f"use a whole number of {gpn}-GPU nodes",
                )
            )
        if g > gpn and not engine.multinode:
            out.append(
                Problem(
                    f"{base}.gpus",
                    f"{engine.name} workers cannot span nodes ({g} GPUs > {gpn})",
                    f"use at most {gpn} GPUs per worker",
                )
            )
        if not shape.colocate:
            spec = recipe.roles[role]
            need = math.ceil(shape.workers * g / gpn) if g < gpn else shape.workers * math.ceil(g / gpn)
            if g < gpn and spec.nodes not in (None,) and recipe.resources.spread_workers:
                need = shape.workers
            if shape.nodes < need:
                out.append(
                    Problem(
                        f"{base}.nodes",
                        f"{shape.workers} worker(s) × {g} GPUs need {need} node(s) of "
                        f"{gpn} GPUs, but {shape.nodes} given",
                        f"set {base}.nodes: {need} or lower the workers",
                    )
                )
            elif (
                shape.nodes * gpn > shape.workers * g
                and isinstance(spec.nodes, int)
                and not (role == "prefill" and any(s.colocate for s in job.shapes))
            ):
                out.append(
                    Problem(
                        f"{base}.nodes",
                        f"{shape.nodes * gpn - shape.workers * g} GPU(s) of the "
                        f"role's {shape.nodes} node(s) stay unused",
                        "add workers or lower nodes",
                        severity="warning",
                    )
                )
        else:
            prefill = job.shape("prefill")
            room = (prefill.nodes * gpn - prefill.workers * prefill.gpus) if prefill else 0
            if shape.workers * g > room:
                out.append(
                    Problem(
                        f"{base}.nodes",
                        f"colocated decode needs {shape.workers * g} GPUs but the prefill nodes have {room} free",
                        "give decode its own nodes or lower prefill GPUs",
                    )
                )
        spec_args = recipe.roles[role].args
        unreadable = size_problems(engine, role, spec_args, g)
        out += unreadable
        if asked is not None and asked[0] != g and not unreadable:  # a size unread is no size to compare
            need, flag = asked
            what = _parallel_words(engine, spec_args)
            if need > g:
                more = fitting_gpus(need, need, gpn, engine.multinode)
                fixes = [f"give {base}.gpus: {more}"] if more is not None else []
                if gpus_fit(g, gpn, engine.multinode):
                    fixes.append(f"lower the parallelism to fit {g} GPUs")
                out.append(
                    Problem(
                        f"{base}.args.{flag}",
                        f"{what} = {need} GPUs, but each {role} worker has {g}",
                        ", or ".join(fixes) or "lower the parallelism",
                    )
                )
            else:
                out.append(
                    Problem(
                        f"{base}.args.{flag}",
                        f"{what} = {need} GPUs; {g - need} of each {role} worker's {g} GPUs stay unused",
                        _unused_fix(engine, spec_args, base, flag, need, g, gpn),
                        severity="warning",
                    )
                )
        out += clean_args(engine, role, spec_args, disagg)[1]
    out += _frontend(job, engine, disagg)
    router = job_router(job)
    fe = recipe.frontend
    nginx_asked = "enable_multiple_frontends" in fe.model_fields_set and fe.enable_multiple_frontends
    runs_nginx = frontend_layout(fe, job.reserved_nodes, job.worker_nodes, not router.serves_directly).uses_nginx
    if runs_nginx and "nginx_container" in fe.model_fields_set and job.container_runtime != "pyxis":
        out.append(
            Problem(
                "frontend.nginx_container",
                f"container_runtime {job.container_runtime} runs the host's nginx, not this image",
                "install nginx on the head node, or use a pyxis profile",
                severity="warning",
            )
        )
    if fe.container_image and job.container_runtime != "pyxis":
        out.append(
            Problem(
                "frontend.container_image",
                f"container_runtime {job.container_runtime} runs the router installed on the node, not this image",
                "install the router on the nodes, or use a pyxis profile",
                severity="warning",
            )
        )
    if router.serves_directly and nginx_asked:
        out.append(
            Problem(
                "frontend.enable_multiple_frontends",
                "without a router there is nothing to put behind nginx; the worker serves directly",
                "set it to false, or choose a router such as sglang-router",
                severity="warning",
            )
        )
    out += dynamo_problems(job, router)
    out += benchmark_problems(recipe.benchmark, engine, router, disagg)
    if recipe.benchmark.container_image and job.container_runtime != "pyxis":
        out.append(
            Problem(
                "benchmark.container_image",
                f"an image of its own needs the pyxis container runtime (this profile uses {job.container_runtime})",
                "remove benchmark.container_image, or use a pyxis profile",
            )
        )
    if job.setup_script and job.container_runtime == "pyxis" and not any(m.container == "/configs" for m in job.mounts):
        out.append(
            Problem(
                "setup_script",
                f"{job.profile.srtctl_root}/configs does not exist here, so /configs is not mounted (as under srtctl) "
                f"and the steps will not find `{recipe.setup_script}`",
                "set srtctl_root in the profile to the srt-slurm checkout that holds configs/",
                severity="warning",
            )
        )
    out += _telemetry(job)
    out += _identity(job)
    out += _observability(job)
    out += validate_profiling(recipe.profiling, active, engine.torch_profiler_env)
    if not job.profile.use_gpus_per_node_directive and not any(
        k in ("gres", "gpus", "gpus-per-node") for k, _ in job.directives
    ):
        out.append(
            Problem(
                "profile.use_gpus_per_node_directive",
                "the job requests no GPUs from Slurm",
                'add default_sbatch_directives: {gres: "gpu:N"} to the profile',
                severity="warning",
            )
        )
    return out


def size_problems(engine: Engine, role: Role, args: dict[str, Any], gpus: int | None) -> list[Problem]:
    """Each parallelism size the role's args write (the engine's TP, PP, DP and EP flags) that is not a whole number
    of at least 1: `tp-size: eight` would otherwise reach the engine's own parser and fail the job as it starts.
    ``gpus`` (a worker's, when known) is the example the fix gives."""
    out: list[Problem] = []
    for key, size in size_args(engine, args):
        value = args[key]
        if value is None or value is False:  # left off the command line (srtctl's rule)
            continue
        example = f", e.g. {gpus}" if gpus is not None else ""
        hint = f"give the {size} as a whole number{example}"  # words for the file and the TUI's TP field alike
        found = count_problem(value, f"roles.{role}.args.{key}", 1, hint)
        out += [found] if found is not None else []
    return out


def recipe_problems(recipe: Recipe) -> list[Problem]:
    """The checks of `validate` that need no profile (each role's parallelism sizes, `size_problems`), over the
    roles with workers: the recipe library marks such a recipe refused as `dry-run` does, before any profile."""
    engine = get_engine(recipe.engine.type)
    return [
        problem
        for role, spec in recipe.roles.items()
        if spec.workers > 0
        for problem in size_problems(engine, role, spec.args, spec.gpus)
    ]


def _unused_fix(engine: Engine, args: dict[str, Any], base: str, flag: str, need: int, g: int, gpn: int) -> str:
    """Fewer GPUs when that count fits the node, else a larger TP that uses all of them (when whole)."""
    if gpus_fit(need, gpn, engine.multinode):
        return f"set {base}.gpus: {need} to give them to other workers"
    tp = arg_int(args, engine.tp_flags) or 1
    factor = need // tp
    if factor and g % factor == 0:
        return f"set {base}.args.{flag}: {g // factor} to use them"
    return f"raise the parallelism to use all {g} GPUs"


def _frontend(job: ResolvedJob, engine: Engine, disagg: bool) -> list[Problem]:
    """`frontend.type` as written vs the engine and the topology (which decide the router that runs)."""
    written = job.recipe.frontend.type
    ft = FRONTEND_TYPES[written]
    router = job_router(job)
    workers = job.worker_count
    fits = [t for t in FRONTEND_TYPES if t != "none" and fronts(t, engine, disagg, workers)]
    hint = f"use one of: {', '.join(fits)}" if fits else "pick another engine"
    out: list[Problem] = []
    reason = misfit(written, router, engine, disagg, workers)
    if reason == "engine":
        shown = written if router.name == written else f"{written} ({router.name})"
        out.append(Problem("frontend.type", f"{shown} cannot front {engine.name} workers", hint))
    elif reason == "topology":
        shape = "prefill/decode workers" if disagg else f"{workers} aggregated workers"
        out.append(
            Problem(
                "frontend.type",
                f"{written} serves one aggregated worker directly, without a router (this job has {shape})",
                ft.router_hint or hint,
            )
        )
    connector = job.recipe.engine.connector
    # a connector some router discovers itself (MoRI-IO) pairs workers only behind such a router
    finders = sorted(name for name, r in ROUTERS.items() if connector in r.kv_discovery)
    if isinstance(connector, str) and finders and connector not in router.kv_discovery:
        out.append(
            Problem(
                "engine.connector",
                f"the {connector} connector's workers are paired by a router that discovers them",
                f"set frontend.type: {' or '.join(finders)}",
            )
        )
    return out


def errors(problems: list[Problem]) -> list[Problem]:
    """Only the findings that stop a render or submit."""
    return [p for p in problems if p.severity == "error"]


def _telemetry(job: ResolvedJob) -> list[Problem]:
    """`telemetry.enabled` needs an exporter that says what to run."""
    telemetry = job.recipe.telemetry
    if telemetry is None or not telemetry.enabled:
        return []
    where = "telemetry.dcgm_exporter" if job.exporter_source == "recipe" else "profile.default_gpu_exporter"
    if job.gpu_exporter is None:
        return [
            Problem(
                where,
                "telemetry is enabled but the GPU exporter is disabled (null)",
                "name an exporter there, or set telemetry.enabled: false",
                severity="warning",
            )
        ]
    if exporter_argv(job.gpu_exporter, "0.0.0.0") is None:
        return [
            Problem(
                f"{where}.command",
                f"a `{job.gpu_exporter.kind}` exporter has no default command",
                "give the command that starts it (and its args, with {host} and {port})",
            )
        ]
    return []


def _identity(job: ResolvedJob) -> list[Problem]:
    """An identity image that differs from the image the job will run is known before submitting."""
    ident = job.recipe.identity
    want = ident.container.image if ident and ident.container else None
    if not want or job.container_image is None or want == job.container_image:
        return []
    return [
        Problem(
            "identity.container.image",
            f"the job runs `{job.container_image}`, not the identity's `{want}`",
            "point model.container at that image, or update identity.container.image",
            severity="warning",
        )
    ]


def _observability(job: ResolvedJob) -> list[Problem]:
    """srtctl's `observability:` switches on analytics (span logs, OTEL, in-job scrapes, Tachometer)."""
    spec = job.recipe.observability or {}
    on = [k for k, v in spec.items() if v is True or (isinstance(v, dict) and v.get("enabled") is True)]
    if not on:
        return []
    return [
        Problem(
            f"observability.{on[0]}",
            "srtctl's analytics capture (span logs, OTEL, raw_prometheus scrapes, Tachometer) is not done by "
            "srt-tui, so the run would lack what that analysis reads",
            "remove the observability block (the Monitor reads every /metrics live), or run it with srtctl",
        )
    ]
