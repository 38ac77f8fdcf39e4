"""Recipe model: srt-slurm schema 2 native (`engine`, `roles`), schema 1 (`backend`, `resources.*`) normalised.

Override files (`base` + `override_*` / `zip_override_*`) expand into named variants first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Protocol, cast

from pydantic import AfterValidator, AliasChoices, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from srt_tui.core import registry
from srt_tui.core.errors import Problem, SrtError, choices_hint, config_error
from srt_tui.core.spec.fork_keys import UNSUPPORTED_BENCHMARKS, ForkSection
from srt_tui.core.spec.frontend_types import FRONTEND_TYPES, unsupported_frontend
from srt_tui.core.spec.library import find_recipe, split_selector
from srt_tui.core.spec.profile import GpuExporter, HealthCheck, Strict
from srt_tui.core.spec.schema1 import normalise_schema1
from srt_tui.core.spec.slurm_values import (
    Account,
    DirectiveValue,
    EnvMap,
    ExtraMount,
    Image,
    ModelPath,
    MountPath,
    OptionKey,
    Partition,
    ProfileName,
    SetupScript,
    SlurmTime,
    SrunValue,
    check_directives,
    check_srun_options,
    integral_floats,
)
from srt_tui.core.spec.sweep import expand_sweep, sweep_params
from srt_tui.core.spec.variants import expand_variants
from srt_tui.core.spec.yamlio import Located, load_yaml

Role = Literal["prefill", "decode", "agg"]
ROLES: tuple[Role, ...] = ("prefill", "decode", "agg")
#: srtctl's name of a role in per-mode blocks (`profiling.aggregated`, `kv_events_config.aggregated`)
MODE_KEYS: dict[str, str] = {"prefill": "prefill", "decode": "decode", "agg": "aggregated"}
Scalar = str | int | float | bool | None
ArgValue = Scalar | list[Scalar] | dict[str, Any]


def one_of(value: Any, choices: tuple[str, ...]) -> str:
    """`value` if it is one of `choices` (the registered names), else the error a `Literal` field gives."""
    if isinstance(value, str) and value in choices:
        return value
    *head, last = [repr(c) for c in choices]
    expected = f"{', '.join(head)} or {last}" if head else last
    raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})


def engine_names() -> tuple[str, ...]:
    """What `engine.type` accepts: the registered engines."""
    return registry.names("engine")


def frontend_names() -> tuple[str, ...]:
    """What `frontend.type` accepts: the spellings, a registered router's name among them."""
    registry.names("router")  # loads the routers, which add their names as spellings
    return tuple(FRONTEND_TYPES)


def _enum(names: Callable[[], tuple[str, ...]]) -> Callable[[dict[str, Any]], None]:
    """`json_schema_extra` listing a field's accepted names as its `enum` (`srt-tui schema recipe`)."""

    def extra(schema: dict[str, Any]) -> None:
        schema["enum"] = list(names())

    return extra


class ModelSpec(Strict):
    """Model weights and container: each a literal path/URI or an alias of the profile."""

    path: ModelPath
    container: Image | None = None
    precision: str | None = None
    served_name: str | None = None
    stage_dir: str | None = None


class ResourcesSpec(ForkSection):
    """Hardware asked of each node; `gpus_per_node` falls back to the profile."""

    gpu_type: str | None = None
    gpus_per_node: int | None = Field(default=None, ge=1)
    spread_workers: bool = False

    fork_section: ClassVar[str] = "resources"


class SlurmSpec(Strict):
    """Account, partition and time limit; missing ones come from the profile."""

    account: Account | None = None
    partition: Partition | None = None
    time_limit: SlurmTime | None = None


class _ChecksItsBlock(Protocol):
    """What the spec asks of a registered engine (`core/engines`): whether it can run its `engine:` block."""

    def block_refusal(self, spec: EngineSpec) -> str | None: ...


class EngineSpec(ForkSection):
    """The serving engine and its engine-wide knobs."""

    #: a registered engine's name (`core/engines`)
    type: str = Field(json_schema_extra=_enum(engine_names))
    set_visible_devices: bool = False
    connector: str | dict[str, Any] | None = None
    mooncake_protocol: Literal["rdma", "tcp"] | None = None
    kv_events_config: bool | dict[str, Any] | None = None
    mooncake_kv_store: dict[str, Any] | None = None
    config: dict[str, Any] | None = None  # engine-specific extras (mocker timing, trtllm yaml, ...)

    fork_section: ClassVar[str] = "engine"

    @field_validator("type", mode="before")
    @classmethod
    def _registered(cls, value: Any) -> str:
        return one_of(value, engine_names())

    @model_validator(mode="after")
    def _engine_takes_it(self) -> EngineSpec:
        engines = cast("Mapping[str, _ChecksItsBlock]", registry.table("engine", object))
        refusal = engines[self.type].block_refusal(self)
        if refusal:
            raise ValueError(refusal)
        return self


class RoleSpec(ForkSection):
    """One role's workers: how many, on how many nodes, with how many GPUs, and their flags/env."""

    nodes: int | Literal["colocate"] | None = None
    workers: int = Field(default=1, ge=0)
    gpus: int | None = Field(default=None, ge=1)
    env: EnvMap = Field(default_factory=dict)
    args: dict[str, ArgValue] = Field(default_factory=dict)
    extra_args: list[str] = Field(default_factory=list)

    fork_section: ClassVar[str] = "roles"

    @field_validator("args", mode="before")
    @classmethod
    def _whole_numbers(cls, value: Any) -> Any:
        return integral_floats(value)


class FrontendSpec(ForkSection):
    """What serves the public port, spelled as the fork does (see `frontend_types`).

    `sglang`: the SGLang router for several workers or prefill/decode, the worker itself for one
    aggregated worker; `vllm`/`atom`/`trtllm_serve`: the one worker serving directly; `vllm-router`,
    `atomesh`, `dynamo`: those routers. `sglang-router` and `none` are srt-tui's older names.
    """

    #: a `frontend.type` spelling (`frontend_types`): the fork's, srt-tui's, or a registered router's name
    type: str = Field(default="none", json_schema_extra=_enum(frontend_names))
    args: dict[str, ArgValue] = Field(default_factory=dict)
    env: EnvMap = Field(default_factory=dict)
    container_image: Image | None = None
    port: int = Field(default=8000, ge=1, le=65535)
    metrics_port: int = Field(default=29000, ge=1, le=65535)
    # srtctl's multi-frontend layout (core/frontends.py); its defaults in schema 1 and the fork's schema 2
    enable_multiple_frontends: bool = True
    num_additional_frontends: int = Field(default=9, ge=0)
    nginx_container: Image = "nginx:1.27.4"
    nginx_raise_ulimit: bool | None = None  # unset: the profile's nginx_raise_ulimit, else off
    nginx_session_affinity: bool = False
    nginx_session_affinity_header: str = Field(default="X-Dynamo-Session-ID", pattern=r"^[A-Za-z0-9-]+$")
    nginx_keepalive_timeout: str = Field(default="600s", pattern=r"^[0-9]+(ms|s|m|h|d)?$")

    fork_section: ClassVar[str] = "frontend"

    @field_validator("type", mode="before")
    @classmethod
    def _known_but_unsupported(cls, value: Any) -> Any:
        refusal = unsupported_frontend(value)
        if refusal:
            raise ValueError(refusal)
        return one_of(value, frontend_names())

    @field_validator("args", mode="before")
    @classmethod
    def _whole_numbers(cls, value: Any) -> Any:
        return integral_floats(value)


def benchmark_type_problem(value: str) -> Problem | None:
    """Why `benchmark.type: value` cannot run (a type srt-tui refuses, with the reason; or no type it has, with
    the nearest one), None for a registered type. srtctl loads any type, so the planner asks this of a recipe
    that loaded, and the loader of one that did not, beside its other problems."""
    names = sorted(registry.names("benchmark"))
    if value in UNSUPPORTED_BENCHMARKS:
        refused = f"`{value}` is not run by srt-tui: {UNSUPPORTED_BENCHMARKS[value]}"
        return Problem("benchmark.type", refused, "one of: " + ", ".join(names))
    if value in names:
        return None
    return Problem(
        "benchmark.type", f"unknown benchmark type `{value}` (srtctl has no runner for it)", choices_hint(value, names)
    )


class BenchmarkSpec(ForkSection):
    """What runs once the router is ready: one of srtctl's benchmark types (see core/benchmark), or manual.

    Which keys each type reads is its module in core/benchmark/types/; a key the type does not read is refused.
    """

    type: str = "manual"
    isl: int | None = None
    osl: int | None = None
    concurrencies: list[int] | str | None = None
    req_rate: str | int | float | None = "inf"
    random_range_ratio: float | None = None
    num_prompts_mult: int | None = None
    num_warmup_mult: int | None = None
    custom_tokenizer: str | None = None
    use_chat_template: bool | None = None  # None: srtctl's default, true
    dataset_name: str | None = None
    dataset_path: str | None = None
    reuse_http_connections: bool = False
    slow_down_sleep_time: float | None = None
    slow_down_wait_time: float | None = None
    command: str | None = None
    env: EnvMap | None = None
    container_image: Image | None = None
    # accuracy evaluations (gsm8k, gpqa, mmlu, longbenchv2)
    num_examples: int | None = None
    max_tokens: int | None = None
    num_threads: int | None = None
    num_shots: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    repeat: int | None = None
    max_context_length: int | None = None
    categories: list[str] | None = None
    # aiperf types (mooncake-router, trace-replay)
    mooncake_workload: str | None = None
    trace_file: str | None = None
    ttft_threshold_ms: float | None = None
    itl_threshold_ms: float | None = None
    aiperf_package: str | None = None
    aiperf_args: Annotated[dict[str, Scalar], AfterValidator(integral_floats)] | None = None
    # router (prefix-ratio) benchmark
    num_requests: int | None = None
    concurrency: int | None = None
    prefix_ratios: list[float] | str | None = None

    fork_section: ClassVar[str] = "benchmark"

    def concurrency_list(self) -> list[int]:
        """Concurrencies as ints, accepting srtctl's `"4x8x16"` string form."""
        if self.concurrencies is None:
            return []
        if isinstance(self.concurrencies, str):
            return [int(x) for x in self.concurrencies.replace(",", "x").split("x") if x.strip()]
        return list(self.concurrencies)


class ProfilingPhase(Strict):
    """The engine steps one phase's capture spans."""

    start_step: int | None = Field(default=None, ge=0)
    stop_step: int | None = Field(default=None, ge=0)


class ProfilingSpec(Strict):
    """srtctl's `profiling:` — nsys (cudaProfilerApi window), nsys-time (delay/duration) or torch."""

    type: Literal["none", "nsys", "nsys-time", "torch"] = "none"
    extra_nsys_args: list[str] | None = None
    prefill: ProfilingPhase | None = None
    decode: ProfilingPhase | None = None
    aggregated: ProfilingPhase | None = None
    delay_secs: int | None = Field(default=None, ge=0)
    duration_secs: int | None = Field(default=None, ge=1)
    benchmark_duration_secs: int = 300


class IdentityModel(Strict):
    """The model the job must serve: its hub repo and revision."""

    repo: str | None = None
    revision: str | None = None


class IdentityContainer(Strict):
    """The container image the job must run."""

    image: str | None = None


class IdentitySpec(Strict):
    """srtctl's `identity:`: what the run should be, checked against each worker's fingerprint (warnings)."""

    model: IdentityModel | None = None
    container: IdentityContainer | None = None
    frameworks: dict[str, str] = Field(default_factory=dict)

    @field_validator("frameworks", mode="before", json_schema_input_type=dict[str, str | int | float])
    @classmethod
    def _versions_as_strings(cls, value: Any) -> Any:
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else value

    def expected(self) -> dict[str, Any]:
        """What each worker's fingerprint checks: framework versions and the model's repo/revision."""
        out: dict[str, Any] = {}
        if self.frameworks:
            out["frameworks"] = dict(self.frameworks)
        if self.model is not None:
            out["model"] = {k: v for k, v in (("repo", self.model.repo), ("revision", self.model.revision)) if v}
        if self.container is not None and self.container.image:
            out["container"] = {"image": self.container.image}
        return out


class InfraSpec(Strict):
    """Where the discovery services (NATS, etcd) run and how NATS is tuned (srtctl's `infra:`)."""

    #: reserve the first node of the allocation for NATS and etcd instead of the head node
    etcd_nats_dedicated_node: bool = False
    #: NATS max message payload in MB (NATS' own default, 1 MB, when unset)
    nats_max_payload_mb: int | None = Field(default=None, ge=1)


class DynamoSpec(Strict):
    """Dynamo runtime of a Dynamo-fronted job: which ai-dynamo to install at job start and its planes.

    srtctl's defaults: install 0.8.0 from PyPI, TCP request plane. Exactly one install source
    (`version`, `hash`, `top_of_tree`, `wheel`); another source replaces the default version.
    """

    install: bool = True
    version: str | None = "0.8.0"
    hash: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{7,40}$")
    top_of_tree: bool = False
    wheel: str | None = None
    request_plane: Literal["nats", "tcp", "http"] = "tcp"
    event_plane: Literal["nats", "zmq"] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> DynamoSpec:
        others = [k for k, on in (("hash", self.hash), ("top_of_tree", self.top_of_tree), ("wheel", self.wheel)) if on]
        if len(others) > 1:
            raise ValueError(f"give one Dynamo install source, not {' and '.join(others)}")
        if others and "version" in self.model_fields_set and self.version is not None:
            raise ValueError(f"give one Dynamo install source: `version` or `{others[0]}`, not both")
        if others and self.version is not None:
            object.__setattr__(self, "version", None)  # another source replaces the default version
        if self.wheel is not None and ("/" in self.wheel or self.wheel.endswith(".whl") or not self.wheel.strip()):
            raise ValueError("`wheel` is a package version such as 1.2.0.dev20260426, not a file name")
        return self

    @property
    def source(self) -> str:
        """`version X`, `hash H`, `top_of_tree` or `wheel W`: what the install would fetch."""
        if self.hash:
            return f"hash {self.hash}"
        if self.top_of_tree:
            return "top_of_tree"
        if self.wheel:
            return f"wheel {self.wheel}"
        return f"version {self.version}"


class TelemetrySpec(ForkSection):
    """Recipe-level telemetry; an explicit `dcgm_exporter` (the fork's name; `gpu_exporter` is srt-tui's
    older one), or null, wins over the profile's `default_gpu_exporter`."""

    enabled: bool = False
    dcgm_exporter: GpuExporter | None = Field(
        default=None, validation_alias=AliasChoices("dcgm_exporter", "gpu_exporter")
    )

    fork_section: ClassVar[str] = "telemetry"

    @model_validator(mode="before")
    @classmethod
    def _one_exporter_name(cls, value: Any) -> Any:
        if isinstance(value, dict) and "dcgm_exporter" in value and "gpu_exporter" in value:
            raise ValueError("telemetry: give `dcgm_exporter` or its older name `gpu_exporter`, not both")
        return value


class Recipe(ForkSection):
    """A normalised (schema 2) recipe."""

    schema_: int = Field(default=2, alias="schema")
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]*$", max_length=120)
    description: str | None = None
    profiles: list[ProfileName] = Field(default_factory=list)
    model: ModelSpec
    resources: ResourcesSpec = Field(default_factory=ResourcesSpec)
    slurm: SlurmSpec = Field(default_factory=SlurmSpec)
    engine: EngineSpec
    roles: dict[Role, RoleSpec]
    frontend: FrontendSpec = Field(default_factory=FrontendSpec)
    benchmark: BenchmarkSpec = Field(default_factory=BenchmarkSpec)
    health_check: HealthCheck | None = None
    environment: EnvMap = Field(default_factory=dict)
    srun_options: Annotated[dict[OptionKey, SrunValue], AfterValidator(check_srun_options)] = Field(
        default_factory=dict
    )
    sbatch_directives: Annotated[dict[OptionKey, DirectiveValue], AfterValidator(check_directives)] = Field(
        default_factory=dict
    )
    container_mounts: dict[MountPath, MountPath] = Field(default_factory=dict)
    extra_mount: list[ExtraMount] = Field(default_factory=list)
    telemetry: TelemetrySpec | None = None
    dynamo: DynamoSpec = Field(default_factory=DynamoSpec)
    infra: InfraSpec = Field(default_factory=InfraSpec)
    # srtctl keys accepted for compatibility; srt-tui keeps them in the resolved recipe
    setup_script: SetupScript | None = None
    profiling: ProfilingSpec | None = None
    identity: IdentitySpec | None = None
    observability: dict[str, Any] | None = None

    fork_section: ClassVar[str] = "recipe"
    model_config = ForkSection.model_config | {"populate_by_name": True}

    @field_validator("engine", mode="before", json_schema_input_type=EngineSpec | str)
    @classmethod
    def _engine_shorthand(cls, value: Any) -> Any:
        return {"type": value} if isinstance(value, str) else value

    def active_roles(self) -> list[Role]:
        """Roles with at least one worker, in prefill, decode, agg order."""
        return [r for r in ROLES if r in self.roles and self.roles[r].workers > 0]

    def to_yaml_dict(self) -> dict[str, Any]:
        """Plain data for writing the recipe back as schema 2 YAML."""
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=True)


@dataclass(frozen=True)
class RecipeSource:
    """Where a recipe came from: file, variant name (override files), and its located raw data."""

    path: Path | None
    variant: str | None
    located: Located | None


def recipe_from_data(data: Any, src: Located, variant: str | None = None) -> Recipe:
    """Validate raw recipe data (schema 1 or 2) into a normalised Recipe."""
    if not isinstance(data, dict):
        raise config_error(
            "a recipe must be a YAML mapping",
            file=src.file,
            line=1,
            hint="start with `name:`, `model:`, `engine:` and `roles:`",
        )
    prefix: tuple[str, ...] = (variant,) if variant and variant != "<file>" else ()
    normalised = normalise_schema1(data, src, prefix) if _is_schema1(data) else data
    try:
        return Recipe.model_validate(normalised)
    except ValidationError as exc:
        from srt_tui.core.spec.model_errors import by_line, to_config_error  # only on errors: a lean start-up

        error = to_config_error(exc, Recipe, src, prefix)
        error.problems = by_line(error.problems + _value_problems(normalised, src, prefix, error.problems))
        raise error from None


def _value_problems(data: dict[str, Any], src: Located, prefix: tuple[str, ...], found: list[Problem]) -> list[Problem]:
    """The checks of a value against a closed set that need no valid recipe (`benchmark.type`), for a file that
    failed to load: each typo of the file in one run, not the keys' first and the value's after they are fixed."""
    bench = data.get("benchmark")
    kind = bench.get("type") if isinstance(bench, dict) else None
    field = ".".join((*prefix, "benchmark", "type"))
    problem = benchmark_type_problem(kind) if isinstance(kind, str) else None
    if problem is None or any(p.field == field for p in found):
        return []
    return [replace(problem, field=field, file=src.file, line=src.line_of((*prefix, "benchmark", "type")))]


def _is_schema1(data: dict[str, Any]) -> bool:
    return (
        data.get("schema") in (None, 1)
        and "roles" not in data
        and (
            "backend" in data
            or "resources" in data
            and any(k.endswith(("_nodes", "_workers")) for k in (data.get("resources") or {}))
        )
    )


def _variants(src: Located) -> list[tuple[str, Any]]:
    """Every selectable job of a file: override variants, sweep members (`v.sweep[i]` inside a variant)."""
    data = src.data
    if not isinstance(data, dict):
        return []
    if "base" in data:
        out: list[tuple[str, Any]] = []
        for name, variant in expand_variants(data, src):
            if isinstance(variant, dict) and "sweep" in variant:
                out += [(f"{name}.{label}", member) for label, member in expand_sweep(variant, src, ("base",))]
            else:
                out.append((name, variant))
        return out
    if "sweep" in data:
        return expand_sweep(data, src)
    return []


def file_sweep_values(path: Path) -> dict[str, dict[str, Any]]:
    """Selector (`sweep[i]`, `v.sweep[i]`) -> the values a sweep member was filled with (`{"osl": 1024}`), for every
    sweep member of the file; empty for a file without `sweep:` (an override file's variants sweep nothing)."""
    src = load_yaml(path)
    data = src.data
    if not isinstance(data, dict):
        return {}
    if "base" in data:
        return {
            f"{name}.{label}": params
            for name, variant in expand_variants(data, src)
            if isinstance(variant, dict) and isinstance(variant.get("sweep"), dict)
            for label, params in sweep_params(variant["sweep"])
        }
    return dict(sweep_params(data["sweep"])) if isinstance(data.get("sweep"), dict) else {}


def file_job_data(src: Located) -> list[tuple[str | None, Any]]:
    """(selector, raw data) of every job a parsed file holds: its variants (`base` first), or the file itself."""
    variants: list[tuple[str | None, Any]] = list(_variants(src))
    return variants or [(None, src.data)]


@dataclass(frozen=True)
class FileRecipe:
    """One job of a recipe file: its selector (None for a plain recipe), its recipe or the error that refused it."""

    selector: str | None
    recipe: Recipe | None
    error: SrtError | None
    source: RecipeSource


def validate_jobs(path: Path, src: Located, jobs: list[tuple[str | None, Any]]) -> list[FileRecipe]:
    """Each job's data validated on its own: one invalid variant does not hide the others."""
    out: list[FileRecipe] = []
    for selector, data in jobs:
        source = RecipeSource(path, selector, src)
        try:
            out.append(FileRecipe(selector, recipe_from_data(data, src, selector), None, source))
        except SrtError as exc:
            out.append(FileRecipe(selector, None, exc, source))
    return out


def file_recipes(path: Path) -> list[FileRecipe]:
    """Every job of a file, read, parsed and expanded once (a file-level problem raises SrtError)."""
    src = load_yaml(path)
    return validate_jobs(path, src, file_job_data(src))


def file_jobs(path: Path) -> list[tuple[str, Any]]:
    """(selector, data) of every job an override or sweep file holds (its `base` aside); empty for a recipe."""
    return [(name, data) for name, data in _variants(load_yaml(path)) if name != "base"]


def list_variants(path: Path) -> list[str]:
    """Selectable jobs of an override or sweep file (empty for a plain recipe)."""
    return [name for name, _ in _variants(load_yaml(path))]


def load_recipe(spec: str | Path) -> tuple[Recipe, RecipeSource]:
    """Load `file.yaml` or `file.yaml:selector` (override variants, sweep members) into a normalised Recipe; the
    file may also be a shipped recipe's path under `recipes/` or a recipe's name (`find_recipe`)."""
    head, selector = split_selector(find_recipe(str(spec)))  # not found: raised, with the closest names
    path = Path(head)  # a directory or device is named by load_yaml
    src = load_yaml(path)
    variants = _variants(src)
    if variants:
        names = [n for n, _ in variants]
        if selector is None:
            if len(variants) == 1:
                selector = names[0]
            else:
                kind = "sweep" if names[0].startswith("sweep[") else "override file"
                choices = [n for n in names if n != "base"]
                raise config_error(
                    f"this {kind} holds {len(variants)} jobs",
                    file=str(path),
                    hint=f"pick one: -f {path}:<job>, one of: {', '.join(choices[:12])}"
                    + (f" … ({len(choices)} in all)" if len(choices) > 12 else ""),
                )
        chosen = [d for n, d in variants if n == selector]
        if not chosen:
            raise config_error(
                f"no job `{selector}` in this file", file=str(path), hint=f"one of: {', '.join(names[:12])}"
            )
        return recipe_from_data(chosen[0], src, selector), RecipeSource(path, selector, src)
    if selector is not None:
        raise config_error(f"`:{selector}` given but the file has no variants or sweep", file=str(path))
    return recipe_from_data(src.data, src), RecipeSource(path, None, src)
