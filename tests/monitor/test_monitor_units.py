"""Monitor pieces without processes: the probe client on a tiny server, metric and registration
parsers, counter history, relay files, stage derivation and the shared table cells."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from srt_tui.monitor import cells
from srt_tui.monitor.files.jobfiles import Event, FileCache, split_http
from srt_tui.monitor.probes.http import HttpFailure, ProbeClient
from srt_tui.monitor.probes.prom import ROUTER_SAMPLES, WORKER_SAMPLES, SampleCache, router_counters, worker_counters
from srt_tui.monitor.probes.registrations import parse_dynamo_health, parse_router_workers
from srt_tui.monitor.statuses.history import CounterHistory
from srt_tui.monitor.statuses.stage import derive_stage
from srt_tui.slurm.client import JobState
from srt_tui.tui.monitor import jobs_model
from tests.monitor import frozen

CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest.fixture
async def server() -> AsyncIterator[Callable[[Handler], Awaitable[int]]]:
    servers: list[asyncio.Server] = []

    async def start(handler: Handler) -> int:
        srv = await asyncio.start_server(handler, "127.0.0.1", 0)
        servers.append(srv)
        return int(srv.sockets[0].getsockname()[1])

    yield start
    for srv in servers:
        srv.close()


async def _requests(reader: asyncio.StreamReader) -> AsyncIterator[str]:
    while True:
        head = await reader.readuntil(b"\r\n\r\n")
        yield head.split(b" ")[1].decode()


async def test_probe_client_pipelines_keeps_alive_and_parses_framings(server) -> None:  # type: ignore[no-untyped-def]
    connections = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        try:
            async for path in _requests(reader):
                if path == "/chunked":
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
                    )
                else:
                    body = f"you asked {path}".encode()
                    writer.write(b"HTTP/1.1 503 No\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    port = await server(handler)
    client = ProbeClient(timeout=2)
    a, b = await client.get_many("127.0.0.1", port, ["/health", "/chunked"])
    assert (a.status, a.body, b.status, b.body) == (503, b"you asked /health", 200, b"hello world")
    for _ in range(3):
        (c,) = await client.get_many("127.0.0.1", port, ["/metrics"])
        assert c.text() == "you asked /metrics"
    assert connections == 1 and client.connects == 1  # one keep-alive connection, pipelined
    client.close()


async def test_probe_client_close_delimited_and_reconnect(server) -> None:  # type: ignore[no-untyped-def]
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.0 200 OK\r\n\r\nuntil close")
        await writer.drain()
        writer.close()

    port = await server(handler)
    client = ProbeClient(timeout=2)
    for _ in range(2):
        assert (await client.get(f"http://127.0.0.1:{port}/x")).body == b"until close"
    assert client.connects == 2


async def test_probe_client_classifies_failures(server) -> None:  # type: ignore[no-untyped-def]
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(5)

    hang = await server(silent)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    client = ProbeClient(timeout=0.3, connect_timeout=0.3)
    with pytest.raises(HttpFailure) as refused:
        await client.get(f"http://127.0.0.1:{closed}/health")
    assert refused.value.kind == "refused" and refused.value.definitive
    with pytest.raises(HttpFailure) as silent_:
        await client.get(f"http://127.0.0.1:{hang}/health")
    # a connection made for the request was accepted and no reply came: the node answers, the process does not
    assert silent_.value.kind == "silent" and not silent_.value.definitive


async def test_a_reply_timeout_on_a_reused_connection_is_no_proof_of_a_hung_process(server) -> None:  # type: ignore[no-untyped-def]
    """The first GET is answered on a keep-alive connection, the second on it is not: that connection may have
    lost its link since (the login node cut off), so the failure is a `timeout`, not `silent` (issue 21 defect 6)."""

    answered: list[int] = []

    async def once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        if not answered:  # the very first request only: then it hangs, on this connection and any new one
            answered.append(1)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
        await asyncio.sleep(5)

    port = await server(once)
    client = ProbeClient(timeout=0.3, connect_timeout=0.3)
    assert (await client.get(f"http://127.0.0.1:{port}/health")).status == 200
    with pytest.raises(HttpFailure) as reused:
        await client.get(f"http://127.0.0.1:{port}/health")
    assert reused.value.kind == "timeout" and client.connects == 1
    with pytest.raises(HttpFailure) as fresh:  # the timed-out connection was dropped: this one is new
        await client.get(f"http://127.0.0.1:{port}/health")
    assert fresh.value.kind == "silent" and client.connects == 2
    client.close()


MOCK_METRICS = """# HELP sglang:num_queue_reqs q
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="m"} 2.0
# TYPE srt_mock_requests_total counter
srt_mock_requests_total{worker="d0",role="decode",path="/health",status="ok"} 77.0
srt_mock_requests_total{worker="d0",role="decode",path="/v1/completions",status="ok"} 10.0
srt_mock_requests_total{worker="d0",role="decode",path="/v1/completions",status="failed"} 2.0
srt_mock_requests_total{worker="d0",role="decode",path="/generate",status="ok"} 3.0
srt_mock_requests_running{worker="d0"} 1.0
"""


def test_worker_counters_from_mock_sglang_and_vllm_metrics() -> None:
    cache = SampleCache()
    c = worker_counters(cache.samples(MOCK_METRICS, WORKER_SAMPLES))
    assert (c.total, c.ok, c.failed, c.running, c.queued) == (15, 13, 2, 1, 2)  # /health is not a request
    parsed = cache.parsed_lines
    cache.rotate()
    cache.samples(MOCK_METRICS, WORKER_SAMPLES)
    assert cache.parsed_lines == parsed  # unchanged lines are not parsed again
    sglang = 'sglang:num_requests_total{m="x"} 40\nsglang:num_running_reqs{m="x"} 3\nsglang:num_queue_reqs{m="x"} 1\n'
    c = worker_counters(cache.samples(sglang, WORKER_SAMPLES))
    assert (c.total, c.ok, c.failed, c.running, c.queued) == (40, 40, None, 3, 1)
    vllm = (
        'vllm:request_success_total{finished_reason="stop"} 5\nvllm:request_success_total{finished_reason="length"} 7\n'
        'vllm:num_requests_running{e="0"} 2\nvllm:num_requests_waiting{e="0"} 4\n'
    )
    c = worker_counters(cache.samples(vllm, WORKER_SAMPLES))
    assert (c.total, c.ok, c.running, c.queued) == (12, 12, 2, 4)


def test_router_counters_sglang_and_vllm() -> None:
    cache = SampleCache()
    smg = """# TYPE smg_router_requests_total counter
smg_router_requests_total{router_type="http",backend_type="pd",endpoint="completions",streaming="false"} 30

# TYPE smg_http_responses_total counter
smg_http_responses_total{status_code="200",error_code=""} 40
smg_http_responses_total{status_code="502",error_code="decode_server_error"} 2
smg_http_responses_total{status_code="503",error_code="server_selection_failed"} 1
smg_worker_retries_total{worker_type="decode",endpoint="/v1/completions"} 9
smg_worker_health{worker="http://127.0.0.1:1"} 0
"""
    c = router_counters(cache.samples(smg, ROUTER_SAMPLES))
    assert (c.requests, c.errors, c.retries) == (30, 3, 9) and c.worker_health == (("http://127.0.0.1:1", False),)
    vllm = """vllm_router_requests_total{route="/v1/completions"} 20
vllm_router_request_errors_total{route="/v1/completions",error_type="server_error"} 6
vllm_router_retries_total{route="/v1/completions"} 10
vllm_router_worker_health{worker="http://127.0.0.1:2"} 1
"""
    c = router_counters(cache.samples(vllm, ROUTER_SAMPLES))
    assert (c.requests, c.errors, c.retries) == (20, 6, 10)
    # PD mode, as vllm-router 0.1.17 printed it after 14 requests, 9 of them 500 (a dead decode, then a dead prefill)
    vllm_pd = """vllm_router_pd_decode_requests_total{worker="http://127.0.0.1:49419"} 5
vllm_router_pd_decode_errors_total{worker="http://127.0.0.1:60841"} 5
vllm_router_processed_requests_total{worker="http://127.0.0.1:58543"} 14
vllm_router_pd_prefill_requests_total{worker="http://127.0.0.1:58543"} 10
vllm_router_pd_prefill_errors_total{worker="http://127.0.0.1:58543"} 4
vllm_router_pd_requests_total{route="/v1/completions"} 14
"""
    c = router_counters(cache.samples(vllm_pd, ROUTER_SAMPLES))
    assert (c.requests, c.errors) == (14, 9)
    assert router_counters([]).requests == 0.0  # sglang-router before its first request


def test_registrations_of_both_routers_and_dynamo() -> None:
    sglang = {"workers": [
        {"url": "http://a:1", "worker_type": "prefill", "is_healthy": True, "bootstrap_port": 8998},
        {"url": "http://b:1", "worker_type": "decode", "is_healthy": False},
        {"url": "http://c:1/", "worker_type": "decode", "is_healthy": True},
    ], "total": 3, "stats": {"prefill_count": 1, "decode_count": 2, "regular_count": 0}}  # fmt: skip
    r = parse_router_workers(sglang)
    assert r.registered == {"prefill": 1, "decode": 2} and r.healthy == {"prefill": 1, "decode": 1}
    assert r.by_url == {"http://a:1": True, "http://b:1": False, "http://c:1": True}
    vllm = {"workers": [{"url": "http://a:1", "worker_type": "regular", "is_healthy": True}], "total": 1}
    assert parse_router_workers(vllm).registered == {"agg": 1}
    assert parse_router_workers({"stats": {"prefill_count": 2, "decode_count": 1}}).registered == {
        "prefill": 2, "decode": 1}  # fmt: skip
    dynamo = {"instances": [{"component": "prefill", "endpoint": "generate"},
                            {"component": "backend", "endpoint": "generate"},
                            {"component": "backend", "endpoint": "clear_kv_blocks"}]}  # fmt: skip
    # srtctl's count: prefill is P, any other component (dynamo.mocker's decode is `backend`) D, or A
    assert parse_dynamo_health(dynamo, disaggregated=True).registered == {"prefill": 1, "decode": 1}
    assert parse_dynamo_health({"instances": dynamo["instances"][1:]}).registered == {"agg": 1}
    assert parse_router_workers("garbage").registered == {}


def test_history_rate_window_and_counter_reset() -> None:
    h = CounterHistory(window_s=60)
    key = ("j", "w")
    assert h.rate(key) is None
    for t, v in ((0, 0), (10, 50), (20, 100)):
        h.observe(key, t, v)
    # the sparkline: 5 s slots of the last minute, the 20 s sampled at 5/s, the 40 s before nothing (gaps)
    assert h.rate(key) == 5.0 and h.spark(key) == (None,) * 8 + (5.0,) * 4
    h.observe(key, 100, 300)  # older samples slide out of the 60 s window
    assert h.rate(key) == pytest.approx(200 / 80)
    h.observe(key, 110, 3)  # the worker restarted
    assert h.rate(key) is None and h.spark(key) == (None,) * 12


def test_history_export_and_seed_carry_rates_across_processes() -> None:
    before = CounterHistory(window_s=60)
    before.observe(("j1", "decode_0"), 100.0, 40)
    saved = before.export(wall_minus_mono=1000.0)
    assert saved == {"j1\tdecode_0": (1100.0, 40)}
    after = CounterHistory(window_s=60)  # a later process: its monotonic clock is 500 s behind the wall clock
    stale = {"j1\tdecode_1": [1000.0, 5], "no-tab": [1140.0, 1], "j1\tbad": [1140.0]}
    after.seed({**saved, **stale}, wall_minus_mono=500.0, now=650.0)
    after.observe(("j1", "decode_0"), 650.0, 90)
    assert after.rate(("j1", "decode_0")) == pytest.approx(50 / 50)
    after.observe(("j1", "decode_1"), 650.0, 9)
    assert after.rate(("j1", "decode_1")) is None  # its saved sample was older than the window


def test_relay_files_and_incremental_events(tmp_path: Path) -> None:
    assert split_http(b"HTTP/1.0 200 OK\ncontent-type: text/plain\n\nbody\n") == (200, b"body\n")
    assert split_http(b"HTTP/1.1 503 Service Unavailable\r\n\r\n") == (503, b"")
    assert split_http(b"") is None and split_http(b"garbage") is None
    files = FileCache()
    status = tmp_path / "status.jsonl"
    status.write_text(json.dumps({"stage": "starting", "time": "t1", "detail": ""}) + "\n{half")
    assert [e.stage for e in files.events(tmp_path)] == ["starting"]
    with open(status, "a") as fh:
        fh.write('"oops\n' + json.dumps({"stage": "serving", "time": "t2", "detail": "ok"}) + "\n")
    assert [e.stage for e in files.events(tmp_path)] == ["starting", "serving"]


def test_stage_reconciles_events_with_slurm() -> None:
    running = [Event("starting", "t", ""), Event("serving", "t2", "at url")]
    assert derive_stage(running, JobState("1", "x", "RUNNING"))[0] == "serving"
    assert derive_stage([Event("submitted", "", "")], JobState("1", "x", "PENDING", reason="Priority")) == (
        "pending", "", "Priority")  # fmt: skip
    stage, _, detail = derive_stage(running, JobState("1", "x", "COMPLETED"))
    assert stage == "failed" and "serving" in detail  # ended without saying so
    assert derive_stage(running, JobState("1", "x", "CANCELLED"))[0] == "cancelled"


def test_cells_and_jobs_table_model() -> None:
    now = frozen.NOW
    fleet = frozen.fleet()
    nv = fleet[0]
    assert cells.healthy_cell(nv) == "P2/2 D1/1"  # as ROUTER's registrations are written
    # queued: no worker exists yet, and `P0/2 D0/1` read as workers that failed (operator pass, stop 29)
    assert cells.healthy_cell(replace(nv, stage="pending", slurm_state="PENDING")) == "-"
    # its script never ran (cancelled while queued, seen while Slurm does not answer): no worker either (pass 3)
    assert cells.healthy_cell(replace(nv, stage="submitted", slurm_state="UNKNOWN")) == "-"
    assert cells.registered_cell(nv.router) == "P2/2 D1/1" and cells.router_cell(nv) == "up P2/2 D1/1"
    assert cells.duration(3725) == "1h02m" and cells.number(3650) == "3.6k" and cells.rate(0.25) == "0.2"
    assert cells.sparkline((0.0, 1.0, 2.0)) == "▁▅█"
    assert nv.elapsed_s(now) == 44 * 60 + 37
    assert nv.elapsed_s(datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc).replace(tzinfo=None)) is not None
    assert [jobs_model.status(s) for s in fleet] == ["ok", "degraded", "ok", "waiting", "failed"]
    assert [s.job_id for s in jobs_model.arrange(fleet, "nvidia !failed", "job", False, now)] == ["81234", "81251"]
    assert [s.job_id for s in jobs_model.arrange(fleet, "", "errors", True, now)][0] == "81240"
    # the `-` rows (no rate known: pending, failed) together after every known rate, 0 included
    idle = replace(fleet[2], job_id="80000", rate_per_s=0.0)  # the oldest job, idle
    rates = [s.rate_per_s for s in jobs_model.arrange([*fleet, idle], "", "rate", True, now)]
    known = [r for r in rates if r is not None]
    assert None in rates and rates == [*known, *[None] * (len(rates) - len(known))], rates
    # the launch script says `workers healthy 0/2` while they come up: the count is part of the stage shown
    coming = replace(nv, stage="workers healthy", stage_detail="0/2")
    assert cells.stage_cell(coming) == "workers healthy 0/2"
    # a queued job has run for no time (squeue's TIME says `-`); it shows how long it has waited
    pending = next(s for s in fleet if s.stage == "pending")
    assert pending.elapsed_s(now) is None and cells.elapsed(pending, now) == "queued 7m30s"
    assert pending.queued_s(now) is not None and nv.queued_s(now) is None
    cols, compact = jobs_model.columns(80, fleet, now)
    assert compact and [c.key for c in cols] == [
        "status", "job", "name", "slurm", "stage", "healthy", "rate", "errors", "elapsed"]  # fmt: skip
    # the profile gives way first, names stay long; the queued job's `queued 7m30s` pushes no column out (op11)
    cols, compact = jobs_model.columns(110, fleet, now)
    assert not compact and "profile" not in {c.key for c in cols} and {"router", "elapsed"} <= {c.key for c in cols}
    assert "profile" in {c.key for c in jobs_model.columns(132, fleet, now)[0]}
    running = [s for s in fleet if s is not pending]
    assert "router" in {c.key for c in jobs_model.columns(110, running, now)[0]}
    assert "profile" in {c.key for c in jobs_model.columns(120, running, now)[0]}
    assert "profile" in {c.key for c in jobs_model.columns(120, fleet, now)[0]}
    assert any("decode_0 down" in p for p in cells.problems(fleet[1]))


async def test_refused_while_starting_is_loading_but_down_once_serving(tmp_path: Path) -> None:
    from srt_tui.monitor.snapshot.collect import Monitor

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    proc = {"name": "agg_0", "role": "agg", "node_index": 0, "gpus": [0], "port": port, "log": "logs/agg_0.log"}
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "agg_0.log").write_text("loading\nTraceback (most recent call last):\nOSError: boom\n")
    (tmp_path / "plan.json").write_text(json.dumps({"topology": "agg1", "nodes": 1, "gpus_per_node": 8,
                                                    "processes": [proc], "router": None}))  # fmt: skip
    (tmp_path / "endpoints.json").write_text(json.dumps({"workers": [
        {"name": "agg_0", "url": url, "health_url": url + "/health", "metrics_url": url + "/metrics"}]}))  # fmt: skip
    status = tmp_path / "status.jsonl"
    status.write_text(json.dumps({"stage": "workers starting", "time": "t", "detail": ""}) + "\n")
    m = Monitor(None, budget_s=0.5, backoff_base=0.01, backoff_cap=0.01)
    try:
        snap = (await m.refresh({"local-x": tmp_path}))[0]
        assert snap.workers[0].health == "unknown" and "not listening" in snap.workers[0].detail
        assert snap.source("http").ok and not snap.degraded  # type: ignore[union-attr]
        with open(status, "a") as fh:
            fh.write(json.dumps({"stage": "serving", "time": "t2", "detail": ""}) + "\n")
        await asyncio.sleep(0.05)
        snap = (await m.refresh({"local-x": tmp_path}))[0]
        w = snap.workers[0]
        assert w.health == "down" and "refused" in w.detail and w.last_error_line == "OSError: boom"
        assert not snap.source("http").ok and snap.degraded  # type: ignore[union-attr]
    finally:
        await m.aclose()


def test_dp_aware_registrations_count_each_worker_once_whatever_its_ranks() -> None:
    """Under --dp-aware sglang-router lists `url@rank` per data-parallel rank and smg adds `dp_base_url`:
    one P and one D worker of 2 ranks each are P1 D1, and a worker is healthy only when all its ranks are."""

    def rank(node: str, k: int, role: str, ok: bool = True) -> dict[str, object]:
        base = f"http://{node}:1"
        return {"url": f"{base}@{k}", "dp_base_url": base, "dp_rank": k, "worker_type": role, "is_healthy": ok}

    smg = {"workers": [rank("a", 0, "prefill"), rank("a", 1, "prefill"), rank("b", 0, "decode"),
                       rank("b", 1, "decode", ok=False)],
           "total": 4, "stats": {"prefill_count": 2, "decode_count": 2, "regular_count": 0}}  # fmt: skip
    r = parse_router_workers(smg)
    assert r.registered == {"prefill": 1, "decode": 1} and r.healthy == {"prefill": 1}
    assert r.by_url == {"http://a:1": True, "http://b:1": False}
    sglang = {"workers": [{"url": f"http://c:2@{k}", "worker_type": "regular", "is_healthy": True} for k in range(8)]}
    assert parse_router_workers(sglang).registered == {"agg": 1}
    assert parse_router_workers(sglang).by_url == {"http://c:2": True}


def test_status_rows_say_what_a_pending_job_waits_for() -> None:
    """`srt-tui status` (issue 21 operator pass): `pending (Resources)`, as the job view says it."""
    from srt_tui.monitor import cells
    from tests.monitor import frozen

    fleet = frozen.fleet()
    pending = next(s for s in fleet if s.stage == "pending")
    assert cells.list_stage(pending) == f"pending ({pending.slurm_reason})" and pending.slurm_reason
    serving = next(s for s in fleet if s.stage == "serving")
    assert cells.list_stage(serving) == cells.stage_cell(serving)


def test_a_queued_job_says_when_slurm_expects_to_start_it() -> None:
    """Operator pass (stop 29): a PENDING job said why it waits, never until when (`squeue --start`). Slurm's
    estimate is shown while it lies ahead; a past one (the scheduler has not revised it) says nothing. s34: said as
    Slurm's estimate, to the minute (`starts in ~12m05s` read as a fact, counting down by the second)."""
    from datetime import timedelta

    from srt_tui.monitor.model import iso_utc

    now = frozen.NOW
    queued = replace(
        frozen.nvidia("healthy", "81234"), stage="pending", slurm_state="PENDING", slurm_reason="Resources"
    )
    soon = replace(queued, expected_start_at=iso_utc((now + timedelta(minutes=12, seconds=5)).timestamp()))
    assert cells.list_stage(soon, now) == "pending (Resources, Slurm estimates start in ~12m)"
    assert cells.starts_in(soon, now) == "Slurm estimates start in ~12m"  # the job view's words
    assert cells.list_stage(soon) == "pending (Resources)"  # the jobs table's STAGE has no clock
    assert cells.list_stage(queued, now) == "pending (Resources)"  # Slurm made no estimate: nothing said
    assert cells.starts_in(queued, now) == ""
    stale = replace(queued, expected_start_at=iso_utc((now - timedelta(minutes=1)).timestamp()))
    assert cells.starts_in(stale, now) == ""
    assert cells.starts_in(replace(soon, stage="starting"), now) == ""  # it left the queue
    later = replace(queued, expected_start_at=iso_utc((now + timedelta(hours=3, minutes=59, seconds=30)).timestamp()))
    assert cells.starts_in(later, now) == "Slurm estimates start in ~3h59m"
    from rich.style import Style

    from srt_tui.tui.monitor.job_view import summary

    queued_at = replace(later, submitted_at=iso_utc((now - timedelta(minutes=2)).timestamp()), started_at="")
    said = summary(queued_at, now, lambda _: Style(), width=80).plain
    assert "queued 2m00s · Slurm estimates start in ~3h59m" in said, said  # the job view: the same words, whole
    assert "estimate" not in summary(replace(queued_at, expected_start_at=""), now, lambda _: Style()).plain
    assert [cells.estimate(s) for s in (20, 89, 3599, 86400 + 7200)] == ["~1m", "~1m", "~60m", "~1d02h"]


def test_the_jobs_tables_stage_says_when_slurm_expects_to_start_a_queued_job() -> None:
    """Operator report: `status` and the job view said `starts in ~9m51s`, the jobs table only `Resources`. Its
    STAGE cell says both where they fit the column, the estimate alone where not (80 columns, a long reason), the
    reason alone without an estimate; the estimate counts down as the clock moves (the cells are memoised). s34: the
    estimate reads as Slurm's (`est.`; `in ~9m51s` read as a fact), within the narrow column's 11 cells."""
    from datetime import timedelta

    from srt_tui.monitor.model import iso_utc

    now = frozen.NOW
    queued = replace(frozen.nvidia("pending"), slurm_reason="Resources")
    soon = replace(queued, expected_start_at=iso_utc((now + timedelta(minutes=9, seconds=51)).timestamp()))
    assert jobs_model.cell(soon, "stage", now) == "Resources, est. ~10m"
    assert jobs_model.cell(soon, "stage", now, narrow=True) == "est. ~10m"
    assert jobs_model.cell(soon, "stage", now + timedelta(minutes=2)) == "Resources, est. ~8m"
    later = replace(soon, slurm_reason="QOSMaxGRESPerUser")  # the reason and the estimate overflow the column
    assert jobs_model.cell(later, "stage", now) == "Slurm est. ~10m"
    assert jobs_model.cell(queued, "stage", now) == "Resources"
    assert jobs_model.cell(soon, "stage", now + timedelta(minutes=10)) == "Resources"  # a past estimate says nothing
    far = replace(queued, expected_start_at=iso_utc((now + timedelta(days=1, hours=2, minutes=5)).timestamp()))
    narrow = jobs_model.cell(far, "stage", now, narrow=True)
    assert narrow == "est. ~1d02h" and len(narrow) <= jobs_model.NARROW_CAPS["stage"], narrow
    assert jobs_model.wait_within(soon, now, 17) == "Slurm est. ~10m"  # a column the reason does not fit
    assert jobs_model.wait_within(replace(soon, stage="serving"), now, 17) == ""


async def test_a_silent_source_is_asked_again_at_the_next_refresh_a_timed_out_one_backs_off() -> None:
    """A worker that took the connection and sent no reply (`kill -STOP`) is asked at every refresh, so the ask a
    resumed process answers is never 8 s of back-off away (issue 21 defect 6: the view stayed stale after CONT);
    a timed-out one (no reply on a kept-alive connection: its link may have gone, a node cut off) still backs off."""
    from srt_tui.monitor.probes.sources import Sources

    now = [100.0]
    sources = Sources(lambda: now[0], backoff_base=0.5, backoff_cap=8.0)

    def fail(kind: str) -> Callable[[], Awaitable[None]]:
        async def fetch() -> None:
            raise HttpFailure(kind, kind)

        return fetch

    silent, timeout = sources.get("silent"), sources.get("timeout")
    for _ in range(6):  # six failures each, every one asked once its back-off (if any) has passed
        now[0] = max(now[0] + 0.1, timeout.next_at)
        for key in ("silent", "timeout"):
            sources.want(key, fail(key), now[0])
        await sources.settle(1.0)
    assert (silent.failures, silent.kind, timeout.failures, timeout.kind) == (6, "silent", 6, "timeout")
    assert silent.next_at == now[0] and timeout.next_at == now[0] + 8.0  # 0.5 s doubled five times, capped
