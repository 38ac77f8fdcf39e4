#!/usr/bin/env python3
"""Key latency in the Monitor at scale: key press → the table repainted, while a refresh runs.

1,024 real mock workers on loopback (benchmarks/mock_fleet.py) in 64 jobs of 16, the real app in Monitor mode
(Textual Pilot, headless, 120x36) refreshing continuously through `LiveFeed`. Each sample waits until a refresh
is in flight, sends `s` (next sort column) as a terminal key arrives, and stops the clock when the compositor
hands the repainted screen to the driver (`App._display`): the handler, the table rebuilt in the new order and
its rendering are all inside. The floor is the same press with no refresh running (polling paused), measured in
the same run; the issue's goal is absolute: max < 100 ms with the refresh running, printed as a ratio to 100 ms.

    python benchmarks/monitor_keys.py [--endpoints 1024] [--presses 12]

2026-12-02, 2 cores at load ~8-10 (other sessions' test suites): at first key → repaint during a refresh was
median 0.3-0.5 s, max 0.85-2.6 s, and 0.2-0.3 s idle. A profile showed three things: full garbage collections
walking the whole heap (up to ~0.34 s pauses), the jobs table cleared and re-laid out on every refresh and every
sort key, and 2,048 URLs split per refresh on the loop. With the heap frozen after the first refresh, the table
diffed (cells set only when they change, rows re-ordered in place) and Origin.parse memoised: median 0.09-0.26 s,
max 0.35-0.53 s during a refresh; idle median 0.08-0.13 s.

Later the same day (load 2-5, two other sessions): the footer recomposed on every refresh and cursor move, every
visible cell rendered through Rich again after a sort, each sort re-laid the whole screen (the status line's
`Static.update`), the 64 rows' cells worked out twice per redraw, and every table rebuild left DataTable's cache
rings (tens of thousands of objects) to the cycle collector. Each fixed, and the refresh moved to a child process
(ChildFeed): idle median 0.055-0.075 s (thread CPU ~45 ms a key: ~10 ms the redraw, ~28 ms the paint); during a
refresh median 0.057-0.058 s, max 0.14-0.15 s, in two runs, beside in-loop refreshes' max 0.10-0.18 s in the same
runs. The mock fleet runs at nice 15 (it stands for GPU nodes elsewhere); without that, on 2 cores it takes the CPU
the TUI needs and the max reads 0.3-0.45 s for either feed. The outliers left are the cycle collector's full
passes over what Textual's own strips leave (~20-30 ms of CPU each) and this machine's other load.
On the quiet machine (load < 1, no other session): during a refresh max 0.077 s / median 0.050 s over 12 presses
(in-loop feed: max 0.141 s) and max 0.097 s / median 0.052 s over 30 (in-loop 0.103 s): under the 100 ms goal,
with little room; idle outliers reach 0.09-0.12 s (a full collection, or DataTable re-measuring itself after a
sort and re-laying the screen, ~20 ms, on some presses).

2026-12-07, load 6-13 on the 2 cores (a CI run and other helpers' suites and benchmarks), so the wall figures
follow the load; before = main at 91743d8 in a worktree, run alternately with the change in the same session. A
profile of the presses (cProfile on the loop, thread CPU per press, `gc.callbacks` timing each collection) found no
refresh merge inside a press (3 refreshes in 12 presses) but ~45 ms of loop CPU per key: the paint ~25 ms
(DataTable asks the table's, the header's and the zebra rows' Rich styles on every line, each a walk over the
ancestors, and gave each cell a fresh meta style that missed Rich's combination cache), the redraw ~8-10 ms, and on
every other `s` (the arrow moving onto or off a header narrower than its ` ↓`: REQ/S, ERR, ELAPSED) a full table
rebuild, 64 rows added and every cell measured again (~10-15 ms); ~15 young collections per key, and a full
collection every ~6 presses, walking the ~110k render-cache objects kept since the one freeze (35-175 ms wall at
that load). Now the columns are resized in place, the styles worked out once per render pass, each cell style
combined with its position once, the colours looked up once per redraw, and the heap frozen after every refresh
(a full collection every 20 refreshes). Thread CPU per key (24 presses, half during a refresh), two alternating
rounds: median 43-51 ms before, 27-29 ms after (max 68-105 before, 34-51 after); full collections inside a press
8 of 48 before, 4 of 48 after (all in stretches with no refresh to freeze after). This benchmark, two alternating
rounds at load 6-8, during a refresh: max 0.148 / 0.249 s before, 0.115 / 0.159 s after; median 0.087 / 0.137 s
before, 0.080 / 0.084 s after. At that load neither meets the 100 ms goal; on a quiet machine the CPU per key
(~28 ms, from ~45) leaves the room the last quiet readings (max 0.077-0.097 s) lacked.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from benchmarks.monitor_refresh import FakeSlurm, free_ports, monitor_app, start_fleet, write_jobs  # noqa: E402
from benchmarks.ratios import median, row  # noqa: E402

GOAL_S = 0.100
#: the mock workers stand for GPU nodes elsewhere: on this machine they yield the CPU to the TUI
FLEET_NICE = 15


async def press_to_paint(app: Any, screen: Any, painted: list[tuple[float, str]]) -> float:
    """Send `s` as the terminal would and wait for the first paint of the new sort order (each paint is
    recorded with the sort it showed: the paint can come before this coroutine sees the sort change)."""
    from textual import events

    before = screen.sort
    key = events.Key("s", "s")
    key.set_sender(app)
    start = time.perf_counter()
    app._driver.send_message(key)
    while True:
        done = next((t for t, sort in reversed(painted) if t > start and sort != before), None)
        if done is not None:
            return done - start
        await asyncio.sleep(0.0005)


async def latencies(jobs: dict[str, Path], presses: int, child: bool) -> tuple[list[float], list[float], int]:
    """(key → repaint while a refresh runs, key → repaint with no refresh running, refreshes done)."""
    from srt_tui.tui.monitor.screen import MonitorScreen

    app = monitor_app(jobs, FakeSlurm(), child=child)
    painted: list[tuple[float, str]] = []
    display = app._display

    def timed_display(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is not None:
            painted.append((time.perf_counter(), getattr(screen, "sort", "")))

    app._display = timed_display  # type: ignore[method-assign]
    busy: list[float] = []
    idle: list[float] = []
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        while screen.polls < 2:  # the cold refresh and one warm
            await pilot.pause(0.05)
        for _ in range(presses):
            while not screen._polling:  # a refresh is in flight
                await asyncio.sleep(0.002)
            await asyncio.sleep(0.02)
            busy.append(await press_to_paint(app, screen, painted))
        screen.poll_interval = 3600.0  # the next re-arm waits an hour: no refresh runs from here on
        while screen._polling:
            await asyncio.sleep(0.01)
        await pilot.pause(0.2)
        for _ in range(presses):
            await asyncio.sleep(0.05)
            idle.append(await press_to_paint(app, screen, painted))
        polls = screen.polls
    return busy, idle, polls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoints", type=int, default=1024)
    parser.add_argument("--presses", type=int, default=12)
    args = parser.parse_args()
    ports = free_ports(args.endpoints)
    fleet = start_fleet(ports, nice=FLEET_NICE)
    results = {}
    try:
        with tempfile.TemporaryDirectory(prefix="srt-bench-keys-") as tmp:
            jobs = write_jobs(Path(tmp), ports)
            for where, child in (("in a child process (the TUI's)", True), ("on the app's loop", False)):
                results[where] = asyncio.run(latencies(jobs, args.presses, child))
    finally:
        for p in fleet:
            p.kill()
            p.wait()
    ms = lambda xs: " ".join(f"{x * 1000:.0f}" for x in xs)  # noqa: E731
    n = f"{args.endpoints} endpoints / {len(jobs)} jobs"
    for where, (busy, idle, polls) in results.items():
        print(f"refreshes {where}, {polls} in all:")
        print(f"  during a refresh (ms): {ms(busy)}")
        print(f"  no refresh running (ms): {ms(idle)}")
    (busy, idle, _), (loop_busy, _, _) = results.values()
    print(f"Monitor key → repaint, {n}, {args.presses} presses each:")
    row(f"key → repaint max during a refresh, {n}", max(busy), max(idle), "idle max")
    row(f"key → repaint median during a refresh, {n}", median(busy), median(idle), "idle median")
    row(f"key → repaint max, refresh in a child vs on the loop, {n}", max(busy), max(loop_busy), "on the loop")
    row(f"key → repaint max during a refresh, {n}", max(busy), GOAL_S, "goal", goal=1.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
