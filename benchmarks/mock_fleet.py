"""Many real mocker workers in one process: each a `srt_tui.mock` MockServer on its own port.

The monitor benchmark needs 1,024 real listeners; 1,024 Python processes would not fit in this
machine's memory, so each fleet process runs a few hundred MockServer instances (the very code
`python -m srt_tui.mock serve` runs) in one asyncio loop. Every endpoint is a real, separate TCP
listener serving the mock's full HTTP surface (/health, /metrics, /generate, ...).

    python benchmarks/mock_fleet.py --host 127.0.0.1 --ports 7001,7002,...   # prints "ready N"
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import sys
from typing import cast

from srt_tui.mock.config import ROLES, Role, WorkerConfig
from srt_tui.mock.server import MockServer


async def _main(host: str, ports: list[int], role: Role) -> None:
    servers = [MockServer(WorkerConfig(port=p, host=host, role=role, name=f"w{p}", token_latency_ms=0)) for p in ports]
    with contextlib.redirect_stdout(io.StringIO()):
        tasks = [asyncio.create_task(s.run()) for s in servers]
        while not all(s.port for s in servers):
            if any(t.done() for t in tasks):
                sys.stderr.write("a mock server failed to start\n")
                raise SystemExit(1)
            await asyncio.sleep(0.01)
    print(f"ready {len(servers)}", flush=True)
    await asyncio.gather(*tasks)


def main() -> None:
    """Parse the ports and serve until killed."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--ports", required=True, help="comma-separated ports")
    p.add_argument("--role", default="regular", choices=ROLES)
    args = p.parse_args()
    asyncio.run(_main(args.host, [int(x) for x in args.ports.split(",")], cast(Role, args.role)))


if __name__ == "__main__":
    main()
