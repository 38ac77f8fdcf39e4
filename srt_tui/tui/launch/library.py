"""The recipe library as the wizard holds it while scans fill it: entries so far and how far each scan is."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from srt_tui.tui.launch.recipe_catalog import RecipeEntry


@dataclass
class RecipeLibrary:
    """Entries in the order they were read, and (files read, files in all) of every scan started."""

    entries: list[RecipeEntry] = field(default_factory=list)
    progress: dict[int, tuple[int, int]] = field(default_factory=dict)

    def next_scan(self) -> int:
        """The number of a scan about to start (never one still listed)."""
        return max(self.progress, default=-1) + 1

    def started(self, scan: int) -> None:
        """A scan began: the library is loading until it reports its last folder."""
        self.progress[scan] = (0, 1)

    def reload_started(self, scan: int) -> None:
        """A reload began: it reads every folder again, so its count replaces those of the scans before it."""
        self.progress = {scan: (0, 1)}

    def add(self, scan: int, entries: list[RecipeEntry], read: int, total: int) -> None:
        """A scan read more folders."""
        self.entries.extend(entries)
        self.progress[scan] = (read, total)

    def reloaded(self, scan: int, roots: list[Path], entries: list[RecipeEntry]) -> tuple[int, int]:
        """A reload read ``roots`` again: their entries replaced by ``entries`` (another root's, scanned meanwhile,
        kept); (entries added, entries gone)."""
        under = tuple(str(root) + os.sep for root in roots)
        old = {e.spec for e in self.entries if e.spec.startswith(under)}
        new = {e.spec for e in entries}
        self.entries = [e for e in self.entries if not e.spec.startswith(under)] + list(entries)
        self.progress[scan] = (1, 1)
        return len(new - old), len(old - new)

    @property
    def loading(self) -> bool:
        """Is any scan still reading?"""
        return any(read < total for read, total in self.progress.values())

    @property
    def counts(self) -> tuple[int, int]:
        """Files read and files in all, over every scan."""
        return sum(r for r, _ in self.progress.values()), sum(t for _, t in self.progress.values())
