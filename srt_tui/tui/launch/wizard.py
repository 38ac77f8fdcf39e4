"""The wizard's model: topology presets, the role form ↔ recipe mapping, and a prepare that never raises.

Plain Python over the core (no Textual), so every rule here is unit-testable and the screens stay thin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from srt_tui.core.api import Prepared, prepare_job
from srt_tui.core.engines import get_engine
from srt_tui.core.engines.base import flag_name
from srt_tui.core.errors import Problem, SrtError, count_problem, whole_number
from srt_tui.core.plan.resolve import aggregated_of, apply_topology, resolve, with_roles
from srt_tui.core.spec.profile import LoadedProfile
from srt_tui.core.spec.recipe import ROLES, Recipe, RecipeSource, Role, RoleSpec
from srt_tui.core.spec.resolved import topology_of
from srt_tui.core.spec.topology_string import TopologySpec, parse_topology
from srt_tui.tui.display import scrub

FIELDS: tuple[str, ...] = ("workers", "nodes", "gpus", "tp")


@dataclass(frozen=True)
class RoleForm:
    """The text of one role's inputs, exactly as typed (strings, so half-typed values are representable)."""

    role: Role
    workers: str
    nodes: str
    gpus: str
    tp: str


@dataclass(frozen=True)
class Preset:
    """A topology the recipe offers, with a short description of what it asks for."""

    label: str
    spec: TopologySpec
    note: str


def gpus_per_node(recipe: Recipe, loaded: LoadedProfile) -> int:
    """GPUs per node as resolve decides it: recipe, then profile, then 8."""
    return recipe.resources.gpus_per_node or loaded.profile.gpus_per_node or 8


def _tp_key(recipe: Recipe, spec: RoleSpec) -> str | None:
    flags = {flag_name(f) for f in get_engine(recipe.engine.type).tp_flags}
    return next((k for k in spec.args if flag_name(k) in flags), None)


def form_of(recipe: Recipe, loaded: LoadedProfile) -> list[RoleForm]:
    """Role inputs for a recipe, with GPUs and nodes made explicit from the resolved shapes when possible."""
    shapes: dict[str, tuple[int, int]] = {}
    try:
        job = resolve(loaded, recipe)
        shapes = {s.role: (s.gpus, s.nodes) for s in job.shapes}
    except (SrtError, ValueError, ArithmeticError):
        shapes = {}
    out: list[RoleForm] = []
    for role in ROLES:
        spec = recipe.roles.get(role)
        if spec is None:
            continue
        gpus, nodes = shapes.get(role, (spec.gpus or 0, spec.nodes if isinstance(spec.nodes, int) else 0))
        node_text = "colocate" if spec.nodes == "colocate" else (str(nodes) if nodes else "")
        key = _tp_key(recipe, spec)
        tp = str(spec.args[key]) if key is not None and spec.args[key] is not None else ""
        out.append(RoleForm(role, str(spec.workers), node_text, str(gpus) if gpus else "", tp))
    return out


def _int_field(text: str, path: str, minimum: int, hint: str, problems: list[Problem]) -> int | None:
    value = text.strip()
    if not value:
        return None
    found = count_problem(value, path, minimum, hint)
    if found is not None:
        problems.append(found)
        return None
    return whole_number(value)


@dataclass(frozen=True)
class FormReading:
    """The role form read into the recipe. A role whose fields do not read keeps the recipe's values (so the rest
    of the job is still checked: one role's typo does not hide another role's error) and is listed in ``unread``.
    The TP is read by the core's checks (`core.plan.validate.size_problems`), as the CLI reads a recipe's."""

    recipe: Recipe
    problems: list[Problem]
    unread: frozenset[Role]

    def checked(self, prepared: Prepared | None, found: list[Problem]) -> tuple[Prepared | None, list[Problem]]:
        """The plan and the findings to show, given what `safe_prepare` said of ``recipe``: with a role unread, no
        plan; its refusals, then every finding about the rest of the job (those about the unread roles' kept values
        are not about what is on screen)."""
        if not self.unread:
            return prepared, found
        mine = tuple(f"roles.{role}" for role in self.unread)
        rest = [p for p in found if p.field not in mine and not p.field.startswith(tuple(m + "." for m in mine))]
        return None, self.problems + rest


def recipe_from_form(recipe: Recipe, forms: list[RoleForm]) -> FormReading:
    """Apply the typed role values to the recipe; unreadable values become problems naming the field."""
    problems: list[Problem] = []
    unread: set[Role] = set()
    roles: dict[Role, RoleSpec] = dict(recipe.roles)
    tp_flags = get_engine(recipe.engine.type).tp_flags
    for form in forms:
        base = f"roles.{form.role}"
        spec = roles[form.role]
        found: list[Problem] = []
        workers = _int_field(form.workers, f"{base}.workers", 0, "type a number such as 1", found)
        if workers is None and not form.workers.strip():
            found.append(Problem(f"{base}.workers", "is empty", "type the number of workers, e.g. 1"))
        nodes: int | str | None
        if form.nodes.strip().lower() == "colocate":
            nodes = "colocate"
            if form.role != "decode":
                found.append(Problem(f"{base}.nodes", "only decode can be colocated", "give a number of nodes, e.g. 1"))
        else:
            nodes = _int_field(
                form.nodes,
                f"{base}.nodes",
                1,
                "give a number of nodes (empty = as many as the workers need)"
                + (", or `colocate`" if form.role == "decode" else ""),
                found,
            )
        gpus = _int_field(form.gpus, f"{base}.gpus", 1, "give GPUs per worker, e.g. 4 or 8", found)
        if found:
            problems += found
            unread.add(form.role)
            continue
        key = _tp_key(recipe, spec) or tp_flags[0]
        args: dict[str, Any] = dict(spec.args)
        tp = form.tp.strip()
        if tp:  # as typed: a count, or the text the core's checks refuse with the CLI's words
            number = whole_number(tp)
            args[key] = tp if number is None else number
        else:
            args.pop(key, None)
        roles[form.role] = spec.model_copy(update={"workers": workers, "nodes": nodes, "gpus": gpus, "args": args})
    return FormReading(with_roles(recipe, roles), problems, frozenset(unread))


def safe_prepare(
    recipe: Recipe, loaded: LoadedProfile, source: RecipeSource | None
) -> tuple[Prepared | None, list[Problem]]:
    """prepare_job that reports instead of raising: (prepared or None, errors then warnings)."""
    try:
        prepared = prepare_job(recipe, loaded, source)
    except SrtError as exc:
        return None, [_scrubbed(p) for p in exc.problems] or [Problem("", scrub(str(exc)))]
    except (ValueError, ArithmeticError, KeyError, IndexError, TypeError) as exc:
        return None, [Problem("topology", f"cannot plan this topology: {exc}", "check the role values")]
    return prepared, [_scrubbed(p) for p in prepared.plan.warnings]


def _scrubbed(p: Problem) -> Problem:
    return Problem(p.field, scrub(p.message), scrub(p.hint), None, p.line, p.severity)


def presets_for(recipe: Recipe, loaded: LoadedProfile) -> list[Preset]:
    """The recipe's own topology first, then the usual shapes of its kind (P/D or aggregated), each
    annotated with the nodes it needs or why it does not fit; a P/D recipe also its aggregated twin on the same GPUs
    (`aggregated_of`) when the core plans it (an engine and router that serve aggregated workers)."""
    current = topology_of(recipe)
    names = ["1P1D", "2P1D", "1P2D", "2P2D"] if current.disaggregated else ["agg1", "agg2", "agg4"]
    specs: list[TopologySpec] = [current] + [parse_topology(n) for n in names]
    seen: set[str] = set()
    out: list[Preset] = []
    gpn = gpus_per_node(recipe, loaded)
    for spec in specs:
        label = str(spec)
        if label in seen:
            continue
        seen.add(label)
        out.append(Preset(label, spec, _preset_note(recipe, loaded, spec, gpn, label == str(current))))
    if current.disaggregated:
        agg = _aggregated_preset(recipe, loaded, gpn)
        if agg is not None:
            out.append(agg)
    return out


def _aggregated_preset(recipe: Recipe, loaded: LoadedProfile, gpn: int) -> Preset | None:
    """The P/D recipe's aggregated twin on the same nodes and GPUs (`aggregated_of`: `agg2` for a 1P1D of two 8-GPU
    workers), or None when the core does not plan it (op12: the operator had to edit the roles by hand)."""
    try:
        applied = aggregated_of(recipe, gpn)
    except SrtError:
        return None
    prepared, _ = safe_prepare(applied, loaded, None)
    if prepared is None:  # a router or engine that serves P/D only, or a shape the plan refuses
        return None
    spec = topology_of(applied)
    nodes = prepared.plan.nodes
    return Preset(str(spec), spec, f"{nodes} node{'s' if nodes != 1 else ''} · same GPUs")


def _preset_note(recipe: Recipe, loaded: LoadedProfile, spec: TopologySpec, gpn: int, is_current: bool) -> str:
    mine = "  (recipe)" if is_current else ""
    try:
        applied = apply_topology(recipe, spec, gpn)
    except SrtError:
        return "✗ not this recipe's kind"
    prepared, problems = safe_prepare(applied, loaded, None)
    if prepared is None:
        return "✗ " + _why_not(applied, spec, problems) + mine
    nodes = prepared.plan.nodes
    return f"{nodes} node{'s' if nodes != 1 else ''}" + mine


#: longest reason a preset line shows (the Checks panel has the whole message once it is chosen)
REASON_WIDTH = 40


def _why_not(recipe: Recipe, spec: TopologySpec, problems: list[Problem]) -> str:
    """The real reason a preset cannot run, short: `no router for 2P1D (frontend vllm)`, else the first error."""
    from srt_tui.core.frontends.routers import resolve_router

    workers = spec.prefill + spec.decode + spec.agg
    written = recipe.frontend.type
    if resolve_router(written, spec.disaggregated, workers).serves_directly and (spec.disaggregated or workers > 1):
        return f"no router (frontend {written})"
    first = next((p for p in problems if p.severity == "error"), None)
    if first is None:
        return "invalid"
    text = first.message
    return text if len(text) <= REASON_WIDTH else text[: REASON_WIDTH - 1].rstrip() + "…"


def apply_preset(recipe: Recipe, preset: Preset, loaded: LoadedProfile) -> tuple[Recipe | None, list[Problem]]:
    """Worker counts of the preset, GPUs per worker kept, node counts recomputed; an aggregated preset of a P/D
    recipe makes it aggregated first (`aggregated_of`)."""
    gpn = gpus_per_node(recipe, loaded)
    try:
        if topology_of(recipe).disaggregated and not preset.spec.disaggregated:
            recipe = aggregated_of(recipe, gpn)
        return apply_topology(recipe, preset.spec, gpn), []
    except SrtError as exc:
        return None, list(exc.problems)


def total_gpus(prepared: Prepared) -> int:
    """GPUs held by workers."""
    return sum(len(p.gpus) for p in prepared.plan.workers)


def local_request(prepared: Prepared) -> list[tuple[str, str]]:
    """What the local launcher runs on this machine: no Slurm request, so no account, partition, directives or
    time limit (the job runs until it ends or is cancelled)."""
    plan = prepared.plan
    return [
        ("job name", plan.name),
        ("topology", f"{plan.topology} · {plan.serving}"),
        ("nodes", f"{plan.nodes}, each a loopback address of this machine"),
        ("GPUs", f"{plan.nodes * plan.gpus_per_node} ({plan.nodes} × {plan.gpus_per_node}) by the plan's masks"),
        ("time limit", "none: it runs until it ends or is cancelled"),
    ]


def slurm_request(prepared: Prepared) -> list[tuple[str, str]]:
    """What will be asked of Slurm: nodes, GPUs (directive or GRES), time, account, partition, extras."""
    job, plan = prepared.job, prepared.plan
    directives = dict(plan.directives)
    if "gpus-per-node" in directives:
        gpu_req = f"--gpus-per-node={directives['gpus-per-node']}"
    elif directives.get("gres"):
        gpu_req = f"--gres={directives['gres']}"
    else:
        gpu_req = "none requested"
    managed = {"job-name", "nodes", "ntasks", "ntasks-per-node", "gpus-per-node", "gres", "time", "account"}
    managed |= {"partition"}
    extras = " ".join(f"--{k}" + (f"={v}" if v is not None else "") for k, v in plan.directives if k not in managed)
    return [
        ("job name", plan.name),
        ("topology", f"{plan.topology} · {plan.serving}"),
        ("nodes", str(plan.nodes)),
        ("GPUs", f"{plan.nodes * plan.gpus_per_node} ({plan.nodes} × {plan.gpus_per_node}) via {gpu_req}"),
        ("time limit", job.time_limit),
        ("account", job.account or "- (cluster default)"),
        ("partition", job.partition or "- (cluster default)"),
        ("other sbatch", extras or "-"),  # a short key: at 80 columns `--gpus-per-node=8` was folded
    ]
