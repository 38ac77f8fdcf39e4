"""The facts of a cluster profile that matter at a glance, as plain strings (no Textual, no vendor checks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from srt_tui.tui.display import display_path
from srt_tui.widgets.fit_columns import FitColumn, Fitted, fit
from srt_tui.widgets.layout import is_wide

if TYPE_CHECKING:
    from srt_tui.core.errors import ConfigError
    from srt_tui.core.spec.profile import Profile, ProfileFile

#: the table's columns, each as wide as its longest usual value; `priority` 0 always shows, higher numbers give way
#: first, whole, on a terminal too narrow for them all (the detail pane spells every fact out)
COLUMNS: tuple[FitColumn, ...] = (
    FitColumn("mark", "", 0, 1),
    FitColumn("name", "NAME", 0, 13),
    FitColumn("source", "SOURCE", 5, 7),
    FitColumn("gpus", "GPUS", 1, 4),
    FitColumn("mask", "MASK VARIABLE", 2, 20),
    FitColumn("request", "GPU REQUEST", 3, 15),
    FitColumn("interface", "INTERFACE", 6, 10),
    FitColumn("runtime", "RUNTIME", 4, 7),
    FitColumn("exporter", "EXPORTER", 7, 20),
)
#: below `WIDE` columns (widgets.layout) the table drops SOURCE and shortens values so every fact fits 80 columns;
#: narrower still, its columns give way by priority (at 62 columns RUN was cut to `pyx`, EXPORTER off the edge)
NARROW_COLUMNS: tuple[FitColumn, ...] = (
    FitColumn("mark", "", 0, 1),
    FitColumn("name", "NAME", 0, 12),
    FitColumn("gpus", "GPUS", 1, 4),
    FitColumn("mask", "MASK", 2, 4),
    FitColumn("request", "REQUEST", 3, 13),
    FitColumn("interface", "INTERFACE", 5, 10),
    FitColumn("runtime", "RUN", 4, 5),
    FitColumn("exporter", "EXPORTER", 6, 12),
)
#: the keys of `fact_row`'s cells, in its order
FACT_KEYS = ("gpus", "mask", "request", "interface", "runtime", "exporter")
#: what a broken file shows in the GPU-request column; its errors are listed below the table
INVALID = "see errors ↓"


def columns(width: int) -> tuple[FitColumn, ...]:
    """The profile-table column set for a terminal this wide (the wide one's longer values, or the narrow one's)."""
    return COLUMNS if is_wide(width) else NARROW_COLUMNS


#: the widest a column grows to show its longest value whole when the table has the room
VALUE_CAP = 24


def fitted(width: int, room: int, longest: Mapping[str, int]) -> tuple[Fitted, ...]:
    """The columns of a terminal ``width`` wide that fit a table of ``room`` cells: each as wide as its ``longest``
    value (up to `VALUE_CAP`) when they all fit so (`enP6p3s0f0np0` whole, not clipped to `enP6p3s0f0`), else at
    their usual widths, a longer value cut with `…`; the least important giving way whole, a header never cut."""
    chosen = columns(width)
    natural = {c.key: max(c.cap or 0, longest.get(c.key, 0)) for c in chosen}
    grown = fit([replace(c, cap=VALUE_CAP) for c in chosen], natural, room)
    if len(grown) == len(chosen):
        return grown
    return fit(chosen, {c.key: c.cap or 0 for c in chosen}, room)


def gpu_request(p: Profile) -> str:
    """`--gpus-per-node` or the GRES directive the profile adds."""
    if p.use_gpus_per_node_directive:
        return "--gpus-per-node"
    gres = (p.default_sbatch_directives or {}).get("gres")
    return f"GRES {gres}" if gres else "none (!)"


def exporter(p: Profile) -> str:
    """The GPU exporter every job of this profile starts, unless a recipe says otherwise."""
    if "default_gpu_exporter" not in p.model_fields_set:
        return "dcgm :9401 (default)"
    e = p.default_gpu_exporter
    if e is None:
        return "disabled"
    return f"{e.kind} :{e.port}"


def fact_row(p: Profile, narrow: bool = False) -> tuple[str, ...]:
    """GPUS … EXPORTER cells of a valid profile; `narrow` drops the words the detail pane spells out."""
    if narrow:
        return (
            str(p.gpus_per_node or 8),
            p.visible_devices_env.removesuffix("_VISIBLE_DEVICES"),
            gpu_request(p).removeprefix("--"),
            p.interface,
            p.container_runtime,
            exporter(p).removesuffix(" (default)"),
        )
    return (
        str(p.gpus_per_node or "8 (default)"),
        p.visible_devices_env,
        gpu_request(p),
        p.interface + ("" if p.network_interface else " (default)"),
        p.container_runtime,
        exporter(p),
    )


def error_lines(err: ConfigError | None, shown_path: str) -> list[str]:
    """Each problem of a broken file as `file:line: field: message (fix: …)`, host paths left out."""
    if err is None:
        return []
    out: list[str] = []
    for p in err.problems:
        where = f"{shown_path}:{p.line}" if p.line else shown_path
        text = f"{where}: {p.field + ': ' if p.field else ''}{p.message}"
        if p.hint:
            text += f" (fix: {p.hint})"
        out.append(text)
    return out or [f"{shown_path}: invalid profile"]


def detail_lines(p: Profile) -> list[tuple[str, str]]:
    """Longer facts for the detail pane."""
    directives = " ".join(f"--{k}={v}" for k, v in (p.default_sbatch_directives or {}).items()) or "-"
    flags = [
        f"gpus-per-node directive {'on' if p.use_gpus_per_node_directive else 'off'}",
        f"segment {'on' if p.use_segment_sbatch_directive else 'off'}",
        f"exclusive {'on' if p.use_exclusive_sbatch_directive else 'off'}",
    ]
    return [
        ("description", (p.description or "-").strip()),
        ("cluster", p.cluster or "-"),
        (
            "slurm",
            f"account {p.default_account or '-'} · partition {p.default_partition or '-'} · "
            f"time {p.default_time_limit or '01:00:00 (default)'}",
        ),
        ("directives", directives + "  (" + ", ".join(flags) + ")"),
        ("GPUs", f"{p.gpus_per_node or 8} per node, type {p.default_gpu_type or '-'}, mask {p.visible_devices_env}"),
        ("network", p.interface),
        ("runtime", p.container_runtime + (f" · containers: {', '.join(p.containers)}" if p.containers else "")),
        ("models", ", ".join(p.model_paths) if p.model_paths else "-"),
        ("mounts", ", ".join(f"{h}:{c}" for h, c in (p.default_mounts or {}).items()) or "-"),
        ("exporter", exporter(p)),
    ]


@dataclass(frozen=True)
class ProfileRow:
    """A profile file as the Profile step lists it, its facts as strings: worked out where the profile models
    are loaded, in the recipe reader process (so the first screen does not wait for them) or in the app.
    `file` holds the parsed profile when this process read it; a row from the reader is parsed when chosen."""

    name: str
    path: Path
    source: str
    valid: bool
    wide: tuple[str, ...] = ()
    narrow: tuple[str, ...] = ()
    detail: tuple[tuple[str, str], ...] = ()
    errors: tuple[str, ...] = ()
    file: ProfileFile | None = field(default=None, compare=False)
    #: the profile this user last chose or submitted with (`state.last_profile`): the cursor starts on it
    remembered: bool = False

    @classmethod
    def listed(cls, files: list[ProfileFile]) -> list[ProfileRow]:
        """The rows of ``files``, the one this user last chose marked: read where the rows are made (the reader
        process, or the Profile step's worker), never on the UI thread, nor imported for the first frame."""
        from srt_tui.state.last_profile import NAMED_SOURCES, remembered_profile

        name = remembered_profile()
        rows = [cls.of(pf) for pf in files]
        mark = next((i for i, r in enumerate(rows) if r.name == name and r.source in NAMED_SOURCES), None)
        if mark is not None:
            rows[mark] = replace(rows[mark], remembered=True)
        return rows

    @classmethod
    def of(cls, pf: ProfileFile) -> ProfileRow:
        """The row of a file this process read."""
        p = pf.profile
        if p is None:
            return cls(pf.name, pf.path, pf.source, False, errors=tuple(error_lines(pf.error, display_path(pf.path))),
                       file=pf)  # fmt: skip
        return cls(pf.name, pf.path, pf.source, True, fact_row(p), fact_row(p, True), tuple(detail_lines(p)), file=pf)

    def facts(self) -> dict[str, Any]:
        """The row as JSON (what the reader process sends)."""
        return {
            "name": self.name, "path": str(self.path), "source": self.source, "valid": self.valid,
            "wide": list(self.wide), "narrow": list(self.narrow), "detail": [list(x) for x in self.detail],
            "errors": list(self.errors), "remembered": self.remembered,
        }  # fmt: skip

    @classmethod
    def from_facts(cls, data: dict[str, Any]) -> ProfileRow:
        """The row `facts` described (ValueError when `data` is not such a description)."""
        try:
            text = [data[k] for k in ("name", "path", "source")]
            lists = [[str(x) for x in data[k]] for k in ("wide", "narrow", "errors")]
            detail = tuple((str(k), str(v)) for k, v in data["detail"])
            remembered = data.get("remembered", False)
            if not all(isinstance(v, str) for v in text) or not isinstance(data["valid"], bool):
                raise ValueError("a fact is not text")
            if not isinstance(remembered, bool):
                raise ValueError("`remembered` is not true or false")
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a profile row: {exc}") from exc
        name, path, source = text
        return cls(name, Path(path), source, data["valid"], tuple(lists[0]), tuple(lists[1]), detail, tuple(lists[2]),
                   remembered=remembered)  # fmt: skip
