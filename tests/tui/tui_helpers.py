"""Helpers of the TUI tests: a deterministic app (fixed clock, fixed Slurm answer, no blink, no animation), and
the row-cursor walk every table must answer."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Tree

from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.launch.screen import LaunchScreen
from tests.tui.scenarios import NVIDIA, reach, settle

FIXED_NOW = datetime(2026, 1, 2, 3, 4, 5)
SLURM_DOWN = (False, "sinfo: command not found")
#: Slurm answering as `slurm_reachable` says it: the reason and the cluster that answered
SLURM_UP = (True, "cluster local answers (cli transport, the default slurm.conf)", "local")

BROKEN_PROFILE = "description: a profile with a typo\ngpus_per_nod: 8\n"


def make_app(
    profile: str | None = None,
    *,
    probe: tuple[bool, str] | tuple[bool, str, str] | None = SLURM_DOWN,
    read_only: bool = False,
) -> SrtTuiApp:
    """The app as tests see it: nothing depends on the host, the wall clock or a real Slurm (probe None: not asked)."""
    app = SrtTuiApp(
        profile=profile,
        read_only=read_only,
        clock=lambda: FIXED_NOW,
        check_slurm=probe is not None,
        slurm_probe=(lambda: probe) if probe is not None else None,
        cursor_blink=False,
    )
    app.animation_level = "none"
    return app


async def launch_and_tree(pilot: Pilot[Any]) -> tuple[LaunchScreen, Tree[Any]]:
    """The Launch screen the app opened on (a profile given: on its recipes), once settled, and its recipe tree."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, LaunchScreen)
    return screen, screen.query_one("#recipe-tree", Tree)


async def prefill_gpus_field(pilot: Pilot[Any]) -> Input:
    """The nvidia scenario's Topology step reached, its `#prefill-gpus` count focused and its text selected (what
    is typed next replaces it); the app was made with `make_app(NVIDIA.profile)`."""
    await reach(pilot, NVIDIA, "topology", typed=False)
    box = pilot.app.screen.query_one("#prefill-gpus", Input)
    box.focus()
    await pilot.pause()
    box.select_all()
    return box


async def walk_rows(pilot: Pilot[Any], table: DataTable[Any]) -> None:
    """Home/End and j/k/g/G move `table`'s row cursor as in every table (one RowTable, issue 11 item 6)."""
    table.focus()
    last = table.row_count - 1
    assert last >= 2
    await pilot.press("home")
    assert table.cursor_row == 0
    await pilot.press("j", "j")
    assert table.cursor_row == 2
    await pilot.press("k")
    assert table.cursor_row == 1
    await pilot.press("G")
    assert table.cursor_row == last
    await pilot.press("g")
    assert table.cursor_row == 0
    await pilot.press("end")
    assert table.cursor_row == last


async def settle_but(pilot: Pilot[Any], held: str) -> None:
    """Let every worker but `held` finish (a held library scan would never finish inside the wait)."""
    for _ in range(50):
        await pilot.pause()
        busy = [w for w in pilot.app.workers if not w.is_finished and w.name != held]
        if not busy:
            return
        await pilot.app.workers.wait_for_complete(busy)


def hold_scan_at(monkeypatch: Any, held: Callable[[str], bool]) -> threading.Event:
    """Hold the recipe library's scan at each folder `held` picks until the returned event is set (the test
    looks at the rows read so far meanwhile; it must set the event before the app closes)."""
    from srt_tui.tui.launch import recipe_catalog

    gate = threading.Event()
    real = recipe_catalog.read_entries

    def read_entries(path: Path, folder: str, **kw: Any) -> list[Any]:
        if held(folder):
            gate.wait(60)
        return real(path, folder, **kw)

    monkeypatch.setattr(recipe_catalog, "read_entries", read_entries)
    return gate


#: the characters a terminal sends for the named keys the typing tests use
KEY_CHARS = {"enter": "\r", "backspace": "\x7f", "escape": "\x1b", "tab": "\t", "ctrl+n": "\x0e"}


def terminal_keys(app: App[Any], *reads: str) -> list[Any]:
    """The keys the app's terminal driver reads from `reads`, each one read of the terminal, in Textual's Esc wait
    (100 ms) of the one before (with the parser its module names)."""
    import sys

    from textual import events

    parser = sys.modules[app.driver_class.__module__].XTermParser()
    tokens = [token for raw in reads for token in parser.feed(raw)]
    tokens += parser.feed("")  # "": the reads ended (no key follows the last Esc)
    keys = [token for token in tokens if isinstance(token, events.Key)]
    assert keys == tokens, tokens
    return keys


def burst(app: App[Any], *keys: str) -> None:
    """Type ``keys`` (key names, or single characters) in one burst, as one read of a terminal delivers them: all
    are queued on the app before the first is handled. `pilot.press` waits for the app to go idle after each key,
    which hides what a fast typist, `tmux send-keys` or a laggy ssh link sees."""
    from textual import events
    from textual.keys import _character_to_key

    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(key if key.isalnum() else _character_to_key(key), key))
        else:
            app.post_message(events.Key(key, KEY_CHARS.get(key)))


class FakeCluster:
    """A Slurm that answers the Submit step's preflight with one partition of ``nodes`` 8-GPU nodes (no
    accounting), whatever cluster this host has: what the step shows does not depend on the host."""

    name = "cli"

    def __init__(self, nodes: int = 3, partition: str = "batch") -> None:
        self.count, self.partition = nodes, partition

    def partitions(self) -> list[Any]:
        from srt_tui.slurm.client import PartitionInfo

        names = tuple(f"n{i}" for i in range(1, self.count + 1))
        return [PartitionInfo(self.partition, "UP", names, self.count, 32 * self.count, is_default=True)]

    def nodes(self) -> list[Any]:
        from srt_tui.slurm.client import NodeInfo

        return [
            NodeInfo(f"n{i}", "IDLE", 32, 1000, "gpu:8", 8, None, (self.partition,)) for i in range(1, self.count + 1)
        ]

    def accounts(self, user: str) -> list[str] | None:
        return None


def answer_preflight_with(monkeypatch: Any, cluster: FakeCluster) -> None:
    """The Submit step's preflight asks ``cluster`` (its client comes from `srt_tui.slurm.select.get_client`)."""
    import srt_tui.slurm.select

    monkeypatch.setattr(srt_tui.slurm.select, "get_client", lambda *a, **k: cluster)


def paths_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model and container paths of the shipped cluster profiles (`/lustre/…`) are not on this machine, and Submit
    refuses a missing one as `srt-tui preflight` does: a test about something else finds them all."""
    monkeypatch.setattr("srt_tui.slurm.preflight.check_paths", lambda job: [])
