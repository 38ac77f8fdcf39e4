"""Closed-loop load at fixed concurrencies against a router or worker: `srt-tui bench`, the smoke test, and
`python -m srt_tui.mock bench` (the mocker jobs' twin of sa-bench).

Standard library only (asyncio streams, see client.py), like the worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from srt_tui.bench.client import ClientError, Connection, Origin
from srt_tui.bench.sa_bench import Progress  # sa-bench's progress file, so status and the Monitor read both alike
from srt_tui.bench.stats import Outcome, format_table, summarize_level, totals

ERROR_TEXT_LIMIT = 200


def parse_concurrencies(text: str) -> tuple[int, ...]:
    """``4x8`` or ``4,8`` to (4, 8); every level must be a positive integer."""
    parts = [p.strip() for p in text.replace("x", ",").split(",") if p.strip()]
    if not parts:
        raise ValueError("no concurrency given")
    levels = []
    for part in parts:
        if not part.isdigit() or int(part) < 1:
            raise ValueError(f"concurrency must be a positive integer, not {part!r}")
        levels.append(int(part))
    return tuple(levels)


@dataclass(frozen=True)
class BenchConfig:
    """One bench run."""

    url: str
    concurrencies: tuple[int, ...]
    model: str = "mock-model"
    isl: int = 128
    osl: int = 128
    num_prompts_mult: int = 10
    num_warmup_mult: int = 0
    endpoint: str = "/v1/completions"
    stream: bool = False
    timeout_s: float = 300.0
    #: write sa-bench's progress file (benchmark-progress.json) here, e.g. a job's logs directory
    progress_dir: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> BenchConfig:
        """From the ``bench`` command line."""
        Origin.parse(args.url)
        if args.isl < 1 or args.osl < 1:
            raise ValueError("isl and osl must be at least 1")
        if args.num_prompts_mult < 1 or args.num_warmup_mult < 0:
            raise ValueError("num-prompts-mult must be at least 1 and num-warmup-mult not negative")
        return cls(
            url=args.url.rstrip("/"),
            concurrencies=parse_concurrencies(args.concurrencies),
            model=args.model,
            isl=args.isl,
            osl=args.osl,
            num_prompts_mult=args.num_prompts_mult,
            num_warmup_mult=args.num_warmup_mult,
            endpoint=args.endpoint,
            stream=args.stream,
            timeout_s=args.timeout,
            progress_dir=args.progress_dir,
        )


def build_payload(config: BenchConfig, index: int) -> dict[str, Any]:
    """Request body ``index``: a prompt of ``isl`` words, varied per request, asking for ``osl`` tokens."""
    prompt = " ".join(f"w{(index * 31 + i) % 1009}" for i in range(config.isl))
    if config.endpoint == "/generate":
        return {
            "text": prompt,
            "sampling_params": {"max_new_tokens": config.osl, "ignore_eos": True, "temperature": 0.0},
            "stream": config.stream,
        }
    body: dict[str, Any] = {"model": config.model, "max_tokens": config.osl, "stream": config.stream}
    if config.stream:
        body["stream_options"] = {"include_usage": True}
    if config.endpoint == "/v1/chat/completions":
        body["messages"] = [{"role": "user", "content": prompt}]
    else:
        body["prompt"] = prompt
    body["ignore_eos"] = True
    return body


def text_of(endpoint: str, obj: Any) -> str:
    """The generated text carried by a whole answer or one streamed event."""
    if not isinstance(obj, dict):
        return ""
    if endpoint == "/generate":
        return str(obj.get("text") or "")
    choices = obj.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        return ""
    choice = choices[0]
    if endpoint == "/v1/chat/completions":
        message = choice.get("delta") or choice.get("message") or {}
        return str(message.get("content") or "")
    return str(choice.get("text") or "")


def completion_tokens(endpoint: str, obj: Any) -> int | None:
    """Generated-token count reported in an answer or event, when it carries one."""
    if not isinstance(obj, dict):
        return None
    source = obj.get("meta_info") if endpoint == "/generate" else obj.get("usage")
    if isinstance(source, dict) and isinstance(source.get("completion_tokens"), int):
        return int(source["completion_tokens"])
    return None


def _first_word(text: str) -> str | None:
    """The first whitespace-separated word, i.e. the answering mock worker's name."""
    words = text.split()
    return words[0] if words else None


def _error_text(status: int, body: bytes) -> str:
    """Short description of an HTTP error answer."""
    return f"HTTP {status}: {body.decode('utf-8', 'replace').strip()[:ERROR_TEXT_LIMIT]}"


@dataclass
class _StreamTally:
    """What a streamed answer has shown so far."""

    start: float
    ttft: float | None = None
    who: str | None = None
    chunks: int = 0
    reported: int | None = None
    error: str | None = None

    def event(self, endpoint: str, data: bytes) -> None:
        """Account one SSE ``data:`` payload."""
        if data == b"[DONE]" or self.error:
            return
        event = json.loads(data)
        if isinstance(event, dict) and event.get("error"):
            self.error = f"stream error: {event['error']}"[:ERROR_TEXT_LIMIT]
            return
        text = text_of(endpoint, event)
        if text:
            self.chunks += 1
            if self.ttft is None:
                self.ttft = time.perf_counter() - self.start
                self.who = _first_word(text)
        self.reported = completion_tokens(endpoint, event) or self.reported


async def _streamed(conn: Connection, config: BenchConfig, body: bytes, start: float) -> Outcome:
    """Send one streaming request and read its SSE events to the end of the body."""
    resp = await conn.request("POST", config.endpoint, body)
    if resp.status != 200:
        return Outcome(False, time.perf_counter() - start, error=_error_text(resp.status, await resp.read()))
    tally = _StreamTally(start)
    pending = b""
    async for piece in resp.iter_bytes():
        *lines, pending = (pending + piece).split(b"\n")
        for line in lines:
            if line.startswith(b"data:"):
                tally.event(config.endpoint, line[5:].strip())
    latency = time.perf_counter() - start
    if tally.error or tally.ttft is None:
        return Outcome(False, latency, error=tally.error or "stream carried no tokens")
    tokens = tally.reported if tally.reported is not None else tally.chunks
    return Outcome(True, latency, tally.ttft, tokens, tally.who)


async def _whole(conn: Connection, config: BenchConfig, body: bytes, start: float) -> Outcome:
    """Send one non-streaming request."""
    resp = await conn.request("POST", config.endpoint, body)
    content = await resp.read()
    latency = time.perf_counter() - start
    if resp.status != 200:
        return Outcome(False, latency, error=_error_text(resp.status, content))
    answer = json.loads(content)
    text = text_of(config.endpoint, answer)
    tokens = completion_tokens(config.endpoint, answer)
    return Outcome(True, latency, None, tokens if tokens is not None else len(text.split()), _first_word(text))


async def send_one(conn: Connection, config: BenchConfig, index: int) -> Outcome:
    """One request within the timeout; every failure becomes a failed outcome, never an exception."""
    body = json.dumps(build_payload(config, index)).encode()
    start = time.perf_counter()
    exchange = _streamed if config.stream else _whole
    try:
        return await asyncio.wait_for(exchange(conn, config, body, start), timeout=config.timeout_s)
    except asyncio.TimeoutError:
        conn.close()
        error = f"timeout after {config.timeout_s:g}s"
    except (ClientError, ValueError) as exc:
        conn.close()
        error = f"{type(exc).__name__}: {exc}"[:ERROR_TEXT_LIMIT]
    return Outcome(False, time.perf_counter() - start, error=error)


class Watcher(Protocol):
    """Told when each request is sent and when it ends, so a caller can show requests in flight and how long the
    oldest has waited (the smoke test's live line)."""

    def sent(self, index: int) -> None:
        """Request ``index`` is on its way."""

    def ended(self, index: int, outcome: Outcome) -> None:
        """Request ``index`` ended: answered, failed or timed out."""


async def drive(
    origin: Origin,
    config: BenchConfig,
    concurrency: int,
    total: int,
    progress: Progress | None = None,
    watcher: Watcher | None = None,
) -> list[Outcome]:
    """Closed loop: ``concurrency`` senders, one connection each, share ``total`` requests (each counted
    in ``progress`` when given, and each sent and ended told to ``watcher``)."""
    outcomes: list[Outcome] = []
    indices = iter(range(total))

    async def sender() -> None:
        conn = Connection(origin)
        try:
            for index in indices:
                if watcher is not None:
                    watcher.sent(index)
                outcome = await send_one(conn, config, index)
                outcomes.append(replace(outcome, finished_at=time.time()))
                if progress is not None:
                    progress.request_done()
                if watcher is not None:
                    watcher.ended(index, outcome)
        finally:
            conn.close()

    await asyncio.gather(*(sender() for _ in range(min(concurrency, total))))
    return outcomes


async def run_bench(config: BenchConfig) -> dict[str, Any]:
    """Every concurrency level in order; the whole result document."""
    origin = Origin.parse(config.url)
    levels: list[dict[str, Any]] = []
    served: Counter[str] = Counter()
    progress = None
    if config.progress_dir:
        progress = Progress(Path(config.progress_dir), list(config.concurrencies), config.num_prompts_mult)
    for step, concurrency in enumerate(config.concurrencies):
        if config.num_warmup_mult:
            if progress is not None:
                progress.begin(step, "warmup")
            await drive(origin, config, concurrency, concurrency * config.num_warmup_mult)
        if progress is not None:
            progress.begin(step, "measure")
        started = time.perf_counter()
        outcomes = await drive(origin, config, concurrency, concurrency * config.num_prompts_mult, progress)
        level = summarize_level(concurrency, outcomes, time.perf_counter() - started, config.stream)
        served.update(level["answered_by"])
        levels.append(level)
    if progress is not None:
        progress.finish()
    return {
        "url": config.url,
        "endpoint": config.endpoint,
        "model": config.model,
        "isl": config.isl,
        "osl": config.osl,
        "stream": config.stream,
        "num_prompts_mult": config.num_prompts_mult,
        "num_warmup_mult": config.num_warmup_mult,
        "results": levels,
        "totals": totals(levels),
        "answered_by": dict(sorted(served.items())),
    }


def bench_main(args: argparse.Namespace) -> int:
    """``bench`` subcommand: run, print the table, write JSON; exit 1 when every request failed."""
    try:
        config = BenchConfig.from_args(args)
    except ValueError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    result = asyncio.run(run_bench(config))
    print(format_table(result), flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)
            fh.write("\n")
    return 1 if result["totals"]["ok"] == 0 else 0
