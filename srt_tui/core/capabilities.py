"""The closed vocabulary of adapter capabilities: every value an engine or router declares, as Literal types.

Engines and routers state what differs from the defaults with these values, and the planner, the renderer and
the monitor match on them; a typo is a type error, not a silently different launch.
"""

from __future__ import annotations

from typing import Literal

#: how the job knows a router is ready and counts its workers: its `GET /workers`, Dynamo's `/health`
#: instance list, the router's own `/health` (vllm-router in discovery mode, whose workers never show in
#: /workers), or each worker's own `/health` (no registration to read)
Registration = Literal["router-workers", "dynamo-health", "router-health", "worker-health"]
#: how workers start behind a router: the engine's own HTTP server, or in-process Dynamo workers
WorkerStart = Literal["direct", "dynamo"]
#: where a worker's health is read: `/health` on its HTTP port, or Dynamo's system server
WorkerHealth = Literal["engine-http", "system-port"]
#: the worker API dialect a router expects (what the mocker imitates)
WorkerApi = Literal["sglang", "vllm"]
#: which port a worker serves on: the public one (one worker, no router) or one allocated to it
WorkerPort = Literal["public", "allocated"]
#: how a router runs a P/D request: "concurrent" (the same request to a prefill and a decode at once, the decode
#: waiting for the prefill's KV, so a decode's TTFT covers the prefill: sglang-router, smg) or "sequential" (the
#: prefill's one-token answer first, then the decode, whose TTFT starts when the prefill is done: vllm-router)
PdFlow = Literal["concurrent", "sequential"]
#: how an engine's worker processes start: one step per node, or one MPI step per worker across its nodes
LaunchStyle = Literal["per-node", "mpi"]
