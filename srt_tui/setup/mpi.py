"""Which `srun --mpi` plugins this cluster has: `srun --mpi=list`, then a `--test-only` step that loads each.

Listing alone is not enough: Debian's Slurm 22.05 lists `pmix` while its PMIx library is absent, and a step
with `--mpi=pmix` then fails (`Invalid MPI type 'pmix'`); `srun --test-only --mpi=X` loads the plugin without
running anything, so it tells a usable plugin from a listed one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

#: the plugins a profile may prefer, best first: srtctl's Dynamo steps use pmix; pmi2 is the usual fallback
PREFERENCE: tuple[str, ...] = ("pmix", "pmi2", "none")


def parse_mpi_list(text: str) -> tuple[str, ...]:
    """The plugin names in `srun --mpi=list` output (22.05 and 25.11: a header, one tab-indented name a line,
    then `specific pmix plugin versions available: pmix_v4,...`, whose versions are names too)."""
    names: list[str] = []
    for line in text.splitlines():
        if line[:1].isspace() and line.strip():
            names.append(line.strip())
        elif "versions available:" in line:
            names += [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class MpiProbe:
    """What srun listed, which listed plugins loaded (`--test-only`), and why the others did not."""

    listed: tuple[str, ...]
    usable: tuple[str, ...]
    refused: dict[str, str] = field(default_factory=dict)

    @property
    def best(self) -> str:
        """The plugin to write: the first of PREFERENCE that loads (`none` always does)."""
        return next((p for p in PREFERENCE if p in self.usable), "none")

    def why_not(self, plugin: str) -> str | None:
        """Why ``plugin`` does not load on this cluster (`srun --test-only --mpi=pmix: can not load PMIx library`,
        `srun --mpi=list does not list it`); None when it loads, or when this run did not try it (a listed plugin
        outside PREFERENCE that no one asked about)."""
        if plugin in self.usable:
            return None
        if plugin in self.refused and self.refused[plugin] != "not listed":
            return f"srun --test-only --mpi={plugin}: {self.refused[plugin]}"
        return None if plugin in self.listed else "srun --mpi=list does not list it"

    def evidence(self) -> str:
        """One line for the profile's comment and doctor's finding."""
        said = "; ".join(f"--mpi={k} refused ({v})" for k, v in self.refused.items())
        usable = ", ".join(self.usable) or "none"
        return f"srun --mpi=list lists {', '.join(self.listed) or 'nothing'}; srun --test-only loads {usable}" + (
            f"; {said}" if said else ""
        )


def probe_mpi(listing: str, test: Callable[[str], str | None], also: tuple[str, ...] = ()) -> MpiProbe:
    """Parse ``listing`` and try each preferred listed plugin (and ``also``) with ``test`` (None: it loads)."""
    listed = parse_mpi_list(listing)
    usable: list[str] = []
    refused: dict[str, str] = {}
    for name in dict.fromkeys([*[p for p in PREFERENCE if p in listed and p != "none"], *also]):
        if name == "none":
            continue
        reason = test(name) if name in listed else "not listed"
        if reason is None:
            usable.append(name)
        else:
            refused[name] = reason
    return MpiProbe(listed, (*usable, "none"), refused)
