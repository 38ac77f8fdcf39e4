"""`plan.json` as typed records: one definition of each field, used to write it (from a JobPlan, see
`model.py`) and to read it back (the monitor, through `core/jobdir/contract.py`).

A record's fields are the document's keys, in the order they are written. Reading is driven by the
same annotations: a key that is absent or null takes the field's default, an unknown key is ignored
(a newer srt-tui may add some), a key of the wrong type is a `DocError` naming its path
(`processes[0].port`) and what was expected, which the contract turns into a `JobDirError`.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from functools import cache
from typing import Any, ClassVar, TypeVar, Union, get_args, get_origin, get_type_hints

from srt_tui.core.spec.resolved import Mount

#: the newest `plan.json` format this srt-tui writes and reads (a file without `version` is 1)
PLAN_VERSION = 1

#: field metadata: the record's keys are written into its parent's object (a router entry is its
#: process's keys plus its own), and the key must be present
FLAT = {"flat": True}
REQUIRED = {"required": True}
#: field metadata: the key is left out when its value is empty (only some processes have it)
OMIT_EMPTY = {"omit_empty": True}

R = TypeVar("R")


class DocError(ValueError):
    """A key of the wrong type, or a required key missing: its path in the document and what was expected.

    Raised where the value is read, without a path; each enclosing record or list adds its part as the
    error unwinds (`within`), so a document that reads cleanly never builds a path string."""

    def __init__(self, expected: str, found: object = MISSING) -> None:
        self.expected = expected
        self.missing = found is MISSING
        self.found = "" if found is MISSING else type_name(found)
        self._parts: list[str] = []
        super().__init__(expected)

    def within(self, part: str) -> DocError:
        """This error, one level further out (`name` of a record's key, `[i]` of a list item)."""
        self._parts.append(part)
        return self

    @property
    def key(self) -> str:
        """The key's path: `processes[0].port`."""
        return "".join(p if p.startswith("[") or i == 0 else f".{p}" for i, p in enumerate(reversed(self._parts)))

    def __str__(self) -> str:
        if self.missing:
            return f"key `{self.key}` is missing"
        return f"key `{self.key}`: expected {self.expected}, found {self.found}"


def type_name(value: object) -> str:
    """How a JSON value is named in a message: `a string`, `a list`, `null`."""
    names: dict[type, str] = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    names.update({int: "a number", float: "a number"})
    return "null" if value is None else names.get(type(value), type(value).__name__)


class Record:
    """A document record: `to_json` writes its fields in order, `parse` reads them by their annotations."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object, keys in field order."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("flat"):
                out.update(value.to_json())
            elif not (f.metadata.get("omit_empty") and not value):
                out[f.name] = _encode(value)
        return out

    @classmethod
    def parse(cls: type[R], raw: object) -> R:
        """The record from a parsed JSON object (a DocError names what does not fit)."""
        record: Any = cls  # a dataclass: hashable, the decoder's cache key
        decoded: R = _record_decoder(record)(raw)
        return decoded


def _encode(value: object) -> object:
    if isinstance(value, Record):
        return value.to_json()
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


Decoder = Callable[[object], Any]


def _scalar(kind: type, expected: str) -> Decoder:
    def decode(value: object) -> object:
        if type(value) is kind and (kind is not int or value >= 0):  # type: ignore[operator]
            return value  # the common case, first
        if isinstance(value, bool) is not (kind is bool):
            raise DocError(expected, value)
        if kind is str and isinstance(value, int):
            return str(value)  # a job id or a port written as a number
        if kind is float and isinstance(value, int):
            return value  # an int is a float to the type system; kept, so it is written back as read
        raise DocError(expected, value)

    return decode


_SCALARS: dict[object, tuple[Decoder, str]] = {
    str: (_scalar(str, "a string"), "strings"),
    int: (_scalar(int, "a non-negative integer"), "non-negative integers"),
    float: (_scalar(float, "a number"), "numbers"),
    bool: (_scalar(bool, "a boolean"), "booleans"),
}


def _any(value: object) -> object:
    return value


def _plural(tp: object) -> str:
    """What a list of ``tp`` is called in a message."""
    if tp in _SCALARS:
        return _SCALARS[tp][1]
    if get_origin(tp) in (Union, types.UnionType):
        return " or ".join(_plural(a) if a is not type(None) else "nulls" for a in get_args(tp))
    return "pairs" if get_origin(tp) is tuple else "objects"


@cache
def _decoder(tp: Any) -> Decoder:
    """The reader of one annotation (cached: a plan of hundreds of jobs reuses them)."""
    if tp in _SCALARS:
        return _SCALARS[tp][0]
    if tp is Any or tp is object:
        return _any
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        inner = _decoder(next(a for a in args if a is not type(None)))
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        return _list_decoder(args[0]) if len(args) == 2 and args[1] is Ellipsis else _fixed_decoder(args)
    if origin in (dict, Mapping):
        return _dict_decoder(args[1])
    if isinstance(tp, type) and is_dataclass(tp):
        return _record_decoder(tp)
    raise TypeError(f"no plan.json reader for {tp!r}")


def _items(read: Decoder, values: list[Any]) -> tuple[Any, ...]:
    """Each item read, an error naming its index."""
    out = []
    for i, v in enumerate(values):
        try:
            out.append(read(v))
        except DocError as exc:
            raise exc.within(f"[{i}]") from None
    return tuple(out)


def _list_decoder(item_type: Any) -> Decoder:
    read, expected = _decoder(item_type), f"a list of {_plural(item_type)}"
    plain = item_type if item_type in (str, float) else None  # a list of these needs no item read when all fit

    def decode(value: object) -> tuple[Any, ...]:
        if type(value) is not list:
            raise DocError(expected, value)
        if plain is not None and all(type(v) is plain for v in value):
            return tuple(value)
        return _items(read, value)

    return decode


def _fixed_decoder(args: tuple[Any, ...]) -> Decoder:
    reads = [_decoder(a) for a in args]
    expected = f"a list of {len(args)}"

    def decode(value: object) -> tuple[Any, ...]:
        if type(value) is not list or len(value) != len(reads):
            raise DocError(expected, value)
        out = []
        for i, (read, v) in enumerate(zip(reads, value)):
            try:
                out.append(read(v))
            except DocError as exc:
                raise exc.within(f"[{i}]") from None
        return tuple(out)

    return decode


def _dict_decoder(value_type: Any) -> Decoder:
    read = _decoder(value_type)

    def decode(value: object) -> dict[str, Any]:
        if type(value) is not dict:
            raise DocError("an object", value)
        out = {}
        for k, v in value.items():
            try:
                out[k] = read(v)
            except DocError as exc:
                raise exc.within(k) from None
        return out

    return decode


@cache
def _record_decoder(cls: Any) -> Decoder:
    hints = get_type_hints(cls)
    #: (key, reader, a type whose values are taken as they are, flat, required, default value, default factory)
    plan: list[tuple[str, Decoder, type | None, bool, bool, object, Callable[[], object] | None]] = []
    for f in fields(cls):
        factory = None if f.default_factory is MISSING else f.default_factory
        required = bool(f.metadata.get("required")) or (f.default is MISSING and factory is None)
        flat = bool(f.metadata.get("flat"))
        hint = hints[f.name]
        plain = next((t for t in (str, bool, float) if hint == t or hint == t | None), None)
        plan.append((f.name, _decoder(hint), plain, flat, required, f.default, factory))

    def decode(raw: object) -> object:
        if type(raw) is not dict:
            raise DocError("an object", raw)
        values: dict[str, object] = {}
        for name, read, plain, flat, required, default, factory in plan:
            value = raw if flat else raw.get(name)
            if type(value) is plain:
                values[name] = value
                continue
            if value is None:
                if required and name not in raw:
                    raise DocError("a value").within(name)
                values[name] = factory() if factory is not None else (None if default is MISSING else default)
                continue
            try:
                values[name] = read(value)
            except DocError as exc:
                raise (exc if flat else exc.within(name)) from None
        return cls(**values)

    return decode


@dataclass(frozen=True)
class Deviation(Record):
    """A deliberate difference from srtctl: its id in `core/plan/deviations.py` and what it is."""

    id: str
    what: str = ""


@dataclass(frozen=True)
class PlanProcess(Record):
    """One srun step's entry: a worker rank, a router, an infra service, an exporter or the benchmark."""

    name: str = ""
    role: str = ""
    #: worker | router | infra | telemetry | benchmark
    kind: str = ""
    node_index: int = 0
    gpus: tuple[int, ...] = ()
    visible_devices: str | None = None
    port: int | None = None
    ports: dict[str, int] = field(default_factory=dict)
    url: str | None = None
    health_url: str | None = None
    metrics_url: str | None = None
    command: tuple[str, ...] = ()
    #: its environment, secret variables left out (their names are in `secret_env`)
    env: dict[str, str] = field(default_factory=dict)
    log: str = ""
    node_rank: int = 0
    nnodes: int = 1
    worker: str | None = None
    #: the names of the files written next to its command
    config_files: tuple[str, ...] = ()
    container_image: str | None = None
    secret_env: tuple[str, ...] = ()
    setup_script: tuple[str, ...] = ()
    step_nodes: tuple[int, ...] = ()
    tasks: int = 1
    tasks_per_node: int = 1
    mpi: str | None = None
    launched_by: str | None = None
    install: str | None = None
    #: its request counters on /metrics: ok, failed, running, queued → selector
    metrics: dict[str, str] = field(default_factory=dict)
    #: its serving families on /metrics by key of `core.engines.serving`
    serving: dict[str, str] = field(default_factory=dict, metadata=OMIT_EMPTY)
    unset_env: tuple[str, ...] = field(default=(), metadata=OMIT_EMPTY)
    recipe_srun_options: bool = True
    srun_step_options: tuple[tuple[str, str | None], ...] = ()
    differs_from_srtctl: tuple[Deviation, ...] = ()


@dataclass(frozen=True)
class PlanRouter(Record):
    """A router's entry: its process, its readiness contract and the registrations it expects."""

    type: str = ""
    process: PlanProcess = field(default_factory=PlanProcess, metadata=FLAT)
    waits_for_healthy_workers: bool = False
    #: how the monitor counts its workers (`core.capabilities.Registration`; any string read)
    registration: str = "router-workers"
    expected: dict[str, int] = field(default_factory=dict)
    expected_prefill: int = 0
    expected_decode: int = 0
    expected_agg: int = 0
    workers_url: str | None = None
    worker_launch: str = "direct"
    worker_health: str = "engine-http"


@dataclass(frozen=True)
class PlanNginx(Record):
    """nginx in front of several routers: its process, its config file and the routers' URLs."""

    process: PlanProcess = field(default_factory=PlanProcess, metadata=FLAT)
    config: str = "logs/nginx.conf"
    upstreams: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class PlanExporter(Record):
    """The GPU metrics exporter: where it came from, how to read it, and whether the job starts it."""

    source: str = ""
    image: str = ""
    port: int = 0
    kind: str = ""
    launched: bool = False
    #: the label whose value is the GPU index
    gpu_label: str = ""
    #: gpu_util | power | temperature → metric name
    metrics: dict[str, str] = field(default_factory=dict)
    metrics_urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlanHealthCheck(Record):
    """How long the launch script waits for workers to answer."""

    interval_seconds: float = 0.0
    max_attempts: int = 0


@dataclass(frozen=True)
class PlanDoc(Record):
    """`plan.json`: the job's shape and every process, as written at submission."""

    #: a file without it is version 1 (the writer sets PLAN_VERSION)
    version: int = 1
    name: str = ""
    profile: str = ""
    topology: str = ""
    engine: str = ""
    frontend: str = ""
    nodes: int = 0
    gpus_per_node: int = 0
    visible_devices_env: str = ""
    network_interface: str = ""
    container_runtime: str = ""
    container_image: str | None = None
    model_path: str = ""
    served_model_name: str = ""
    sbatch_directives: tuple[tuple[str, str | None], ...] = ()
    mounts: tuple[Mount, ...] = ()
    srun_options: tuple[tuple[str, str | None], ...] = ()
    #: scope (global, a role, infra, telemetry…) → its variables
    environment: dict[str, dict[str, str]] = field(default_factory=dict)
    #: names of the job's secret variables (values live only in its 0600 secrets.env)
    secret_env: tuple[str, ...] = ()
    #: the workers (required: a plan without workers is not a plan)
    processes: tuple[PlanProcess, ...] = field(default=(), metadata=REQUIRED)
    infra: tuple[PlanProcess, ...] = ()
    telemetry: tuple[PlanProcess, ...] = ()
    router: PlanRouter | None = None
    routers: tuple[PlanRouter, ...] = ()
    nginx: PlanNginx | None = None
    benchmark: PlanProcess | None = None
    profiling: str | None = None
    profile_trigger: PlanProcess | None = None
    public_url: str = ""
    health_check: PlanHealthCheck = field(default_factory=PlanHealthCheck)
    gpu_exporter: PlanExporter | None = None
    #: the recipe's `identity:` as written (free-form: model repo, revision, versions)
    identity: dict[str, Any] | None = None
    precision: str | None = None
    gpu_type: str | None = None
    warnings: tuple[str, ...] = ()
    differs_from_srtctl: tuple[Deviation, ...] = ()

    def all_routers(self) -> tuple[PlanRouter, ...]:
        """Every router: `routers` (srtctl's multi-frontend layout), or the one `router` of older plans."""
        return self.routers or ((self.router,) if self.router is not None else ())


__all__ = [
    "PLAN_VERSION",
    "DocError",
    "Deviation",
    "PlanDoc",
    "PlanExporter",
    "PlanHealthCheck",
    "PlanNginx",
    "PlanProcess",
    "PlanRouter",
    "Record",
]
