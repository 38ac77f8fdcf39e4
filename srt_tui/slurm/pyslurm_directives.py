"""The `#SBATCH` directives srt-tui rendered, as pyslurm 25.11 ``JobSubmitDescription`` attributes.

pyslurm's own ``load_sbatch_options()`` re-parses the script and maps several options to attributes
that do not exist (``--partition``, ``--gpus-per-node``) or of the wrong type (``--time=5``). srt-tui
knows every directive it rendered, so it maps them itself; one it cannot express is an
``UnsupportedDirective`` naming it, and that job goes through ``sbatch`` instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from srt_tui.slurm.parse import parse_time_limit

Directive = tuple[str, str | None]
_Setter = Callable[[str | None], dict[str, Any]]


class UnsupportedDirective(ValueError):
    """A directive pyslurm cannot express the way sbatch would; ``directive`` is its ``--key[=value]``."""

    def __init__(self, directive: str, why: str) -> None:
        super().__init__(f"{directive}: {why}")
        self.directive = directive
        self.why = why


def _need(key: str, value: str | None) -> str:
    if value is None or not value.strip():
        raise UnsupportedDirective(f"--{key}", "needs a value")
    return value.strip()


def _text(attr: str) -> Callable[[str], _Setter]:
    def make(key: str) -> _Setter:
        return lambda value: {attr: _need(key, value)}

    return make


def _integer(attr: str) -> Callable[[str], _Setter]:
    def make(key: str) -> _Setter:
        def setter(value: str | None) -> dict[str, Any]:
            text = _need(key, value)
            if not text.isdigit():
                raise UnsupportedDirective(f"--{key}={text}", "pyslurm takes a plain number here")
            return {attr: int(text)}

        return setter

    return make


def _flag(attr: str, on: object) -> Callable[[str], _Setter]:
    def make(key: str) -> _Setter:
        def setter(value: str | None) -> dict[str, Any]:
            if value is not None:
                raise UnsupportedDirective(f"--{key}={value}", "takes no value here")
            return {attr: on}

        return setter

    return make


def _minutes(attr: str) -> Callable[[str], _Setter]:
    def make(key: str) -> _Setter:
        def setter(value: str | None) -> dict[str, Any]:
            text = _need(key, value)
            if text.upper() in ("UNLIMITED", "INFINITE"):
                return {attr: "UNLIMITED"}
            minutes = parse_time_limit(text)
            if minutes is None:
                raise UnsupportedDirective(f"--{key}={text}", "not a Slurm time")
            return {attr: minutes}  # an int: pyslurm passes digit strings through uncast (TypeError)

        return setter

    return make


def _gpus_per_node(key: str) -> _Setter:
    # pyslurm has no gpus_per_node; its documentation says to use gres_per_node (both are tres_per_node)
    return lambda value: {"gres_per_node": "gpu:" + _need(key, value)}


def _gres(key: str) -> _Setter:
    def setter(value: str | None) -> dict[str, Any]:
        text = _need(key, value)
        if text.lower() == "none":
            raise UnsupportedDirective(f"--{key}={text}", "pyslurm cannot clear a GRES")
        for entry in text.split(","):  # pyslurm needs name[:type]:count for every entry
            if not re.fullmatch(r"(gres[:/])?[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?:\d+", entry.strip()):
                raise UnsupportedDirective(f"--{key}={text}", "pyslurm needs NAME[:TYPE]:COUNT for every GRES")
        return {"gres_per_node": text}

    return setter


def _exclusive(key: str) -> _Setter:
    def setter(value: str | None) -> dict[str, Any]:
        mode = (value or "").strip().lower()
        if mode in ("", "exclusive"):
            return {"resource_sharing": "no"}
        if mode in ("user", "mcs"):
            return {"resource_sharing": mode}
        raise UnsupportedDirective(f"--{key}={value}", "pyslurm knows --exclusive, =user and =mcs only")

    return setter


def _memory(attr: str) -> Callable[[str], _Setter]:
    def make(key: str) -> _Setter:
        def setter(value: str | None) -> dict[str, Any]:
            text = _need(key, value)
            if not re.fullmatch(r"\d+[KMGT]?", text, flags=re.IGNORECASE):
                raise UnsupportedDirective(f"--{key}={text}", "pyslurm takes a size like 500G")
            return {attr: text.upper()}

        return setter

    return make


def _nodes(key: str) -> _Setter:
    def setter(value: str | None) -> dict[str, Any]:
        text = _need(key, value)
        if not re.fullmatch(r"\d+(-\d+)?", text):
            raise UnsupportedDirective(f"--{key}={text}", "pyslurm takes N or MIN-MAX")
        return {"nodes": text}

    return setter


#: sbatch long option -> maker of the function turning its value into JobSubmitDescription attributes
_MAP: dict[str, Callable[[str], _Setter]] = {
    "job-name": _text("name"),
    "nodes": _nodes,
    "ntasks": _integer("ntasks"),
    "ntasks-per-node": _integer("ntasks_per_node"),
    "cpus-per-task": _integer("cpus_per_task"),
    "cpus-per-gpu": _integer("cpus_per_gpu"),
    "gpus-per-node": _gpus_per_node,
    "gres": _gres,
    "gpus": _text("gpus"),
    "gpus-per-task": _text("gpus_per_task"),
    "time": _minutes("time_limit"),
    "time-min": _minutes("time_limit_min"),
    "partition": _text("partitions"),
    "account": _text("account"),
    "qos": _text("qos"),
    "reservation": _text("reservations"),
    "constraint": _text("constraints"),
    "nodelist": _text("required_nodes"),
    "exclude": _text("excluded_nodes"),
    "comment": _text("comment"),
    "dependency": _text("dependencies"),
    "wckey": _text("wckey"),
    "licenses": _text("licenses"),
    "mail-user": _text("mail_user"),
    "mail-type": _text("mail_types"),
    "error": _text("standard_error"),
    "output": _text("standard_output"),
    "chdir": _text("working_directory"),
    "mem": _memory("memory_per_node"),
    "mem-per-cpu": _memory("memory_per_cpu"),
    "mem-per-gpu": _memory("memory_per_gpu"),
    "segment": _integer("segment_size"),
    "exclusive": _exclusive,
    "oversubscribe": _flag("resource_sharing", "yes"),
    "requeue": _flag("is_requeueable", True),
    "no-requeue": _flag("is_requeueable", False),
    "contiguous": _flag("requires_contiguous_nodes", True),
    "overcommit": _flag("overcommit", True),
    "hold": _flag("priority", 0),
    "wait-all-nodes": _integer("wait_all_nodes"),
}


def submit_attributes(directives: Iterable[Directive]) -> dict[str, Any]:
    """JobSubmitDescription keyword arguments for these directives; UnsupportedDirective names the first
    one pyslurm cannot express (an unknown option, a value in a form pyslurm does not parse, or two
    directives setting the same attribute, which sbatch would settle by its own rules)."""
    out: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for key, value in directives:
        shown = f"--{key}" if value is None else f"--{key}={value}"
        maker = _MAP.get(key)
        if maker is None:
            raise UnsupportedDirective(shown, "pyslurm 25.11 has no attribute for it")
        for attr, val in maker(key)(value).items():
            if attr in out:
                raise UnsupportedDirective(shown, f"sets {attr} again (after {origin[attr]})")
            out[attr], origin[attr] = val, shown
    if "wait_all_nodes" in out:
        out["wait_all_nodes"] = bool(out["wait_all_nodes"])
    return out


_LINE = re.compile(r"^#SBATCH\s+--([A-Za-z][A-Za-z0-9-]*)(?:=(.*))?$")


def script_directives(script: Path | str) -> list[Directive]:
    """The ``#SBATCH --key[=value]`` lines of a script srt-tui wrote (its header, up to the first command);
    a short option or a ``--key value`` form is kept whole as the key (mapped to "unsupported")."""
    text = Path(script).read_text() if isinstance(script, Path) else script
    out: list[Directive] = []
    for line in text.splitlines()[1:]:
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break  # sbatch stops reading directives at the first command
        if not stripped.startswith("#SBATCH"):
            continue
        match = _LINE.match(stripped)
        if match:
            out.append((match.group(1), match.group(2)))
        else:
            out.append((stripped[len("#SBATCH") :].strip(), None))
    return out
