"""The job directory's JSON files as one typed, versioned contract: `job.json` (who submitted what,
when, how), `plan.json` (its typed records live in `core/plan/document.py`, shared with the writer),
`endpoints.json` (the URLs the job wrote) and `cancel.json` (srt-tui cancelled the job: by what, when).

Every writer and reader in Python goes through here (the launch script writes `endpoints.json` from
`render`, which takes its version from here), so a directory written by an older or newer srt-tui,
or damaged on disk, is reported as one `JobDirError` naming the file, the key and what was expected
instead of a KeyError deep in the monitor. A file without a `version` key is version 1: the format
every srt-tui wrote before versions were recorded.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from srt_tui.core.jobdir.bounded import read_bytes
from srt_tui.core.plan.document import PLAN_VERSION, PlanDoc
from srt_tui.core.plan.records import DocError, type_name

JOB_FILE = "job.json"
PLAN_FILE = "plan.json"
ENDPOINTS_FILE = "endpoints.json"
CANCEL_FILE = "cancel.json"
#: the newest format of each file this srt-tui writes and reads
JOB_VERSION = 1
ENDPOINTS_VERSION = 1
CANCEL_VERSION = 1

T = TypeVar("T")
#: one swept value as job.json holds it (a list value is written as its text)
SweptValue = str | int | float
Obj = Mapping[str, Any]


class JobDirError(ValueError):
    """A job file that cannot be read as the contract says: which file, what is wrong, the fix."""

    def __init__(self, path: Path, problem: str, fix: str = "") -> None:
        self.path = path
        self.problem = problem
        self.fix = fix
        super().__init__(f"{path}: {problem}" + (f" ({fix})" if fix else ""))

    @property
    def short(self) -> str:
        """The problem with the file's name only (for a table whose row already names the job)."""
        return f"{self.path.name}: {self.problem}"


_DAMAGED = "the directory is damaged or was written by something else: resubmit, or remove it"


class _Doc:
    """One parsed file: typed access to its keys, each failure a JobDirError naming file and key."""

    def __init__(self, path: Path, text: str | bytes, newest: int) -> None:
        self.path = path
        try:
            raw: object = json.loads(text)
        except UnicodeDecodeError:
            raise JobDirError(path, "not UTF-8 text", _DAMAGED) from None
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno} column {exc.colno}"
            raise JobDirError(path, f"not valid JSON ({exc.msg} at {where}; truncated?)", _DAMAGED) from None
        except RecursionError:
            raise JobDirError(path, "nested too deeply to be a job file", _DAMAGED) from None
        if not isinstance(raw, dict):
            raise JobDirError(path, f"expected a JSON object, found {type_name(raw)}", _DAMAGED)
        self.doc: dict[str, Any] = raw
        version = raw.get("version", 1)
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise JobDirError(path, f"key `version`: expected a positive integer, found {version!r}", _DAMAGED)
        if version > newest:
            fix = "read it with the srt-tui that submitted the job, or upgrade srt-tui"
            raise JobDirError(path, f"format version {version} is newer than this srt-tui reads ({newest})", fix)
        self.version = version

    def _bad(self, key: str, expected: str, value: object) -> JobDirError:
        return JobDirError(self.path, f"key `{key}`: expected {expected}, found {type_name(value)}", _DAMAGED)

    def _get(self, key: str, required: bool) -> Any:
        if key not in self.doc:
            if required:
                raise JobDirError(self.path, f"key `{key}` is missing", _DAMAGED)
            return None
        return self.doc[key]

    def text(self, key: str, *, required: bool = False) -> str:
        """A string (numbers are accepted: a job id may be written as one); '' when absent or null."""
        value = self._get(key, required)
        if value is None:
            return ""
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise self._bad(key, "a string", value)
        return str(value)

    def optional_text(self, key: str) -> str | None:
        """A string, or None when absent or null."""
        return self.text(key) if self.doc.get(key) is not None else None

    def count(self, key: str, *, required: bool = False) -> int:
        """A non-negative integer; 0 when absent or null."""
        value = self._get(key, required)
        if value is None:
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self._bad(key, "a non-negative integer", value)
        return value

    def obj(self, key: str) -> Obj | None:
        """An object, or None when absent or null."""
        value = self._get(key, False)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self._bad(key, "an object or null", value)
        return value

    def scalars(self, key: str) -> dict[str, SweptValue] | None:
        """An object of strings and numbers, or None when absent or null."""
        value = self.obj(key)
        if value is None:
            return None
        if not all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value.values()):
            raise self._bad(key, "an object of strings and numbers", value)
        return dict(value)

    def objs(self, key: str, *, required: bool = False) -> tuple[Obj, ...]:
        """A list of objects; empty when absent or null."""
        value = self._get(key, required)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self._bad(key, "a list of objects", value)
        return tuple(value)

    def texts(self, key: str, *, nulls: bool = False) -> tuple[str | None, ...] | None:
        """A list of strings (``nulls``: or nulls), or None when absent or null."""
        value = self._get(key, False)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) or (nulls and v is None) for v in value):
            raise self._bad(key, "a list of strings" + (" or nulls" if nulls else ""), value)
        return tuple(value)


def _strings(values: tuple[str | None, ...] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(v for v in values if v is not None)


@dataclass(frozen=True)
class JobMeta:
    """`job.json`: the job's identity and how it was submitted (written by `apply`, never by the job)."""

    job_id: str
    name: str = ""
    profile: str = ""
    topology: str = ""
    engine: str = ""
    frontend: str = ""
    nodes: int = 0
    gpus_per_node: int = 0
    launcher: str = ""
    transport: str = ""
    user: str = ""
    host: str = ""
    submitted_at: str = ""
    #: the recipe file, absolute (None for a recipe that came from no file, e.g. the wizard's)
    recipe_path: str | None = None
    variant: str | None = None
    #: `apply --tags`
    tags: tuple[str, ...] | None = None
    #: `apply` of a sweep: the id its members share, and which member this is (`sweep[i]`)
    group: str | None = None
    group_member: str | None = None
    #: a sweep member's swept values (`{"osl": 1024}`), in the sweep's order: what Results orders and plots it by
    group_values: Mapping[str, SweptValue] | None = None
    version: int = JOB_VERSION

    def to_json(self) -> dict[str, Any]:
        """The document, in the current format (older directories are rewritten in it when updated)."""
        return {
            "version": JOB_VERSION,
            "job_id": self.job_id,
            "name": self.name,
            "profile": self.profile,
            "topology": self.topology,
            "engine": self.engine,
            "frontend": self.frontend,
            "nodes": self.nodes,
            "gpus_per_node": self.gpus_per_node,
            "launcher": self.launcher,
            "transport": self.transport,
            "user": self.user,
            "host": self.host,
            "submitted_at": self.submitted_at,
            "recipe_path": self.recipe_path,
            "variant": self.variant,
            **({"tags": list(self.tags)} if self.tags is not None else {}),
            **({"group": self.group, "group_member": self.group_member} if self.group is not None else {}),
            **({"group_values": dict(self.group_values)} if self.group_values is not None else {}),
        }


def parse_job_meta(path: Path, text: str | bytes) -> JobMeta:
    """`job.json` from its text; `job_id` is required (empty while a submission is staged)."""
    d = _Doc(path, text, JOB_VERSION)
    return JobMeta(
        job_id=d.text("job_id", required=True),
        name=d.text("name"),
        profile=d.text("profile"),
        topology=d.text("topology"),
        engine=d.text("engine"),
        frontend=d.text("frontend"),
        nodes=d.count("nodes"),
        gpus_per_node=d.count("gpus_per_node"),
        launcher=d.text("launcher"),
        transport=d.text("transport"),
        user=d.text("user"),
        host=d.text("host"),
        submitted_at=d.text("submitted_at"),
        recipe_path=d.optional_text("recipe_path"),
        variant=d.optional_text("variant"),
        tags=_strings(d.texts("tags")),
        group=d.optional_text("group"),
        group_member=d.optional_text("group_member"),
        group_values=d.scalars("group_values"),
        version=d.version,
    )


def parse_plan(path: Path, text: str | bytes) -> PlanDoc:
    """`plan.json` from its text, read through its typed records (`core/plan/document.py`); `processes`
    is required (a plan without workers is not a plan)."""
    d = _Doc(path, text, PLAN_VERSION)
    try:
        return PlanDoc.parse(d.doc)  # its `version` as _Doc checked it
    except DocError as exc:
        raise JobDirError(path, str(exc), _DAMAGED) from None


@dataclass(frozen=True)
class EndpointsDoc:
    """`endpoints.json`: every URL of the job, on the configured interface (written once by the job
    when its nodes are known; node placeholders resolved)."""

    job_id: str = ""
    workers: tuple[Obj, ...] = ()
    router: Obj | None = None
    routers: tuple[Obj, ...] = ()
    nginx: Obj | None = None
    #: one per node (null for a node without an exporter), None when the job launched none
    gpu_exporter_urls: tuple[str | None, ...] | None = None
    public_url: str = ""
    #: one per node, in the allocation's order: index, hostname, ip (a shell on a node needs its hostname)
    nodes: tuple[Obj, ...] = ()
    version: int = ENDPOINTS_VERSION

    def hostnames(self) -> tuple[str, ...]:
        """The nodes' hostnames in node-index order ("" for a node whose name is not written)."""
        return self._by_index("hostname")

    def node_ips(self) -> tuple[str, ...]:
        """The nodes' addresses on the configured interface, in node-index order ("" where not written)."""
        return self._by_index("ip")

    def _by_index(self, key: str) -> tuple[str, ...]:
        by_index = {n.get("index"): n.get(key) for n in self.nodes}
        return tuple(str(by_index.get(i) or "") for i in range(len(self.nodes)))


def parse_endpoints(path: Path, text: str | bytes) -> EndpointsDoc:
    """`endpoints.json` from its text; `workers` is required."""
    d = _Doc(path, text, ENDPOINTS_VERSION)
    return EndpointsDoc(
        job_id=d.text("job_id"),
        workers=d.objs("workers", required=True),
        router=d.obj("router"),
        routers=d.objs("routers"),
        nginx=d.obj("nginx"),
        gpu_exporter_urls=d.texts("gpu_exporter_urls", nulls=True),
        public_url=d.text("public_url"),
        nodes=d.objs("nodes"),
        version=d.version,
    )


@dataclass(frozen=True)
class CancelDoc:
    """`cancel.json`: srt-tui cancelled the job. `srt-tui cancel` and the Monitor's `c` write it into the job
    directory (the user's own file, 0600) before they signal the job (scancel, or the local launcher's SIGTERM),
    so its end reads as what it was (`cancelled with srt-tui cancel at 12:03 UTC`); a job stopped by anything
    else (scancel by hand, the time limit) has none, and its end keeps the job's own guess."""

    #: what cancelled it, as the sentence names it: `srt-tui cancel`, `the srt-tui Monitor`
    by: str
    #: when (ISO-8601 UTC)
    at: str
    user: str = ""
    host: str = ""
    version: int = CANCEL_VERSION

    def to_json(self) -> dict[str, Any]:
        """The document, in the current format."""
        return {"version": CANCEL_VERSION, "by": self.by, "at": self.at, "user": self.user, "host": self.host}

    def words(self) -> str:
        """`cancelled with srt-tui cancel at 12:03 UTC` (the time as written when it is not ISO-8601)."""
        when = self.at[11:16] + " UTC" if len(self.at) >= 16 and self.at[10] == "T" else self.at
        return f"cancelled with {self.by}" + (f" at {when}" if when else "")


def parse_cancel(path: Path, text: str | bytes) -> CancelDoc:
    """`cancel.json` from its text; `by` is required."""
    d = _Doc(path, text, CANCEL_VERSION)
    return CancelDoc(
        by=d.text("by", required=True),
        at=d.text("at"),
        user=d.text("user"),
        host=d.text("host"),
        version=d.version,
    )


#: the bounded reader's kind of each file (its size cap)
KIND_OF = {JOB_FILE: "job", PLAN_FILE: "plan", ENDPOINTS_FILE: "endpoints", CANCEL_FILE: "cancel"}


def _read(job_dir: Path, name: str, parse: Callable[[Path, bytes], T]) -> T:
    path = job_dir / name
    try:
        data = read_bytes(path, KIND_OF[name])
    except FileNotFoundError:
        raise JobDirError(path, "missing", "pass a job directory srt-tui wrote") from None
    except OSError as exc:
        raise JobDirError(path, f"cannot be read ({exc.strerror or exc})", _fix_for(exc)) from None
    return parse(path, data)


def _fix_for(exc: OSError) -> str:
    """The fix for a file that cannot be read: its permissions, or (refused by the bounded reader) the
    directory is not one srt-tui wrote."""
    return _DAMAGED if getattr(exc, "why", None) else "check its permissions"


def read_job_meta(job_dir: Path) -> JobMeta:
    """The job's `job.json`, or a JobDirError saying what is wrong with it."""
    return _read(job_dir, JOB_FILE, parse_job_meta)


def read_plan(job_dir: Path) -> PlanDoc:
    """The job's `plan.json`, or a JobDirError saying what is wrong with it."""
    return _read(job_dir, PLAN_FILE, parse_plan)


def read_endpoints(job_dir: Path) -> EndpointsDoc:
    """The job's `endpoints.json`, or a JobDirError saying what is wrong with it (missing until the job
    knows its nodes)."""
    return _read(job_dir, ENDPOINTS_FILE, parse_endpoints)


def read_cancel(job_dir: Path) -> CancelDoc | None:
    """The job's `cancel.json`, None when srt-tui did not cancel it (no file), or a JobDirError saying what is
    wrong with it."""
    if not os.path.lexists(job_dir / CANCEL_FILE):
        return None
    return _read(job_dir, CANCEL_FILE, parse_cancel)


def job_json_text(meta: JobMeta) -> str:
    """`job.json`'s text: stable key order, newline-terminated."""
    return json.dumps(meta.to_json(), indent=2) + "\n"


def write_job_meta(job_dir: Path, meta: JobMeta) -> None:
    """Write `job.json` whole, then rename it into place (a reader never sees half of it)."""
    from srt_tui.core.owned import write_private

    tmp = job_dir / f".{JOB_FILE}.{os.getpid()}.{time.time_ns()}.tmp"
    write_private(tmp, job_json_text(meta))  # new, 0600, never through a link
    os.replace(tmp, job_dir / JOB_FILE)


def write_cancel(job_dir: Path, doc: CancelDoc) -> None:
    """Write `cancel.json` whole, then rename it into place (a second cancel's record replaces the first's)."""
    from srt_tui.core.owned import write_private

    tmp = job_dir / f".{CANCEL_FILE}.{os.getpid()}.{time.time_ns()}.tmp"
    write_private(tmp, json.dumps(doc.to_json(), indent=2) + "\n")  # new, 0600, never through a link
    try:
        os.replace(tmp, job_dir / CANCEL_FILE)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def update_job_meta(job_dir: Path, **changes: Any) -> JobMeta:
    """Read `job.json`, change the given fields, write it back in the current format."""
    meta = replace(read_job_meta(job_dir), **changes)
    write_job_meta(job_dir, meta)
    return meta


__all__ = [
    "CANCEL_FILE",
    "CANCEL_VERSION",
    "ENDPOINTS_FILE",
    "ENDPOINTS_VERSION",
    "JOB_FILE",
    "JOB_VERSION",
    "PLAN_FILE",
    "CancelDoc",
    "EndpointsDoc",
    "JobDirError",
    "JobMeta",
    "Obj",
    "PlanDoc",
    "SweptValue",
    "job_json_text",
    "parse_cancel",
    "parse_endpoints",
    "parse_job_meta",
    "parse_plan",
    "read_cancel",
    "read_endpoints",
    "read_job_meta",
    "read_plan",
    "update_job_meta",
    "write_cancel",
    "write_job_meta",
]
