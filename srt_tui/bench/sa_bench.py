"""srt-tui's sa-bench client: srtctl's sa-bench flow and result files, Python standard library only.

Shipped into every job directory as ``logs/srt-bench/sa_bench.py`` and run there with the container's
``python3`` (real engines and the mocker alike), so it imports nothing outside the standard library;
``transformers`` is used for prompts and token counts when the container has it. Flow, as srtctl's
``sa-bench/bench.sh`` + ``benchmark_serving.py``: a chat smoke test, then per concurrency c a warm-up of
c x num_warmup_mult prompts and c x num_prompts_mult measured prompts, each level written to
``<logs>/sa-bench_isl_<isl>_osl_<osl>/results_concurrency_<c>_gpus_<n>[_ctx_<p>_gen_<d>].json`` with
srtctl's field names, then ``benchmark-rollup.json`` / ``.csv`` as srtctl's ``rollup.py`` writes them.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import importlib
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

WARMUP_REQUEST_RATE = 250.0  # srtctl's warm-up pace
PERCENTILES = (50.0, 90.0, 99.0)
METRICS = ("ttft", "tpot", "itl", "e2el")
ROLLUP_FIELDS = [
    "Config",
    "Total GPU Count",
    "Decode GPU Count",
    "Total Working GPU Count",
    "Decode Working GPU Count",
    "Prefill Working GPU Count",
    "Concurrency",
    "Total Token Throughput",
    "Output Token Throughput",
    "Median TTFT",
    "Median TPOT",
    "Median ITL",
    "P90 Decode Running Requests",
    "Output Token Throughput per User",
    "Total Token Throughput per GPU",
]


class BenchError(Exception):
    """A setting or input the benchmark cannot run with (reported in one line, exit 2)."""


# ---- tokenizer: transformers when the container has it, else whitespace words -------------------


class WordTokenizer:
    """Stand-in without ``transformers``: one word is one token (what the mocker counts)."""

    name = "words"
    vocab_size = 1000

    def encode(self, text: str) -> list[int]:
        """Pretend token ids, one per word."""
        return [int(w[1:]) % self.vocab_size if w[1:].isdigit() else len(w) for w in text.split()]

    def decode(self, ids: list[int]) -> str:
        """Words for pretend ids."""
        return " ".join(f"t{i % self.vocab_size}" for i in ids)


class HfTokenizer:
    """A ``transformers`` tokenizer (or srtctl-style ``module.Class`` adapter) behind one small interface."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner = inner
        self.name = name
        self.vocab_size = int(inner.vocab_size)

    def encode(self, text: str) -> list[int]:
        """Token ids without special tokens."""
        return list(self.inner.encode(text, add_special_tokens=False))

    def decode(self, ids: list[int]) -> str:
        """Text of token ids."""
        return str(self.inner.decode(ids))

    def chat(self, text: str) -> str:
        """``text`` as one user turn through the model's chat template, ready for generation."""
        messages = [{"role": "user", "content": text}]
        return str(self.inner.apply_chat_template(messages, add_generation_prompt=True, tokenize=False))


def load_tokenizer(path: str, custom: str | None) -> WordTokenizer | HfTokenizer:
    """``custom`` (``module.Class``) when given, else transformers' AutoTokenizer, else words."""
    if custom:
        module_name, _, cls_name = custom.rpartition(".")
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        try:
            cls = getattr(importlib.import_module(module_name), cls_name)
            loader = getattr(cls, "from_pretrained", cls)
            return HfTokenizer(loader(path, trust_remote_code=True), custom)
        except Exception as exc:
            raise BenchError(
                f"benchmark.custom_tokenizer {custom!r} could not be loaded in the benchmark container "
                f"({type(exc).__name__}: {exc}); put its module on PYTHONPATH via benchmark.env"
            ) from None
    local = os.path.isdir(path)
    hub_id = path.count("/") == 1 and not path.startswith((".", "/"))
    if local or hub_id:
        try:
            from transformers import AutoTokenizer  # type: ignore[import-not-found, unused-ignore]

            return HfTokenizer(AutoTokenizer.from_pretrained(path, trust_remote_code=True), path)
        except Exception as exc:
            print(f"[sa-bench] tokenizer {path!r} not loaded ({type(exc).__name__}); counting words", flush=True)
    return WordTokenizer()


# ---- requests -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prompt:
    """One request to send: text, its length in tokens, and the tokens to ask for."""

    text: str
    prompt_len: int
    output_len: int


def random_prompts(
    tok: WordTokenizer | HfTokenizer, isl: int, osl: int, n: int, ratio: float, chat: bool, rng: random.Random
) -> list[Prompt]:
    """srtctl's random dataset: lengths uniform in [len x ratio, len], prompts of consecutive token ids."""
    template_len = 0
    if chat and isinstance(tok, HfTokenizer):
        template_len = len(tok.encode(tok.chat("a"))) - 1
    in_len = max(1, isl - template_len)
    out: list[Prompt] = []
    for i in range(n):
        il = rng.randint(int(in_len * ratio) if in_len > 1 else 1, in_len)
        ol = rng.randint(int(osl * ratio) if osl > 1 else 1, osl)
        offset = rng.randrange(tok.vocab_size)
        span = int(il * 1.5) if chat else il
        text = tok.decode([(offset + i + j) % tok.vocab_size for j in range(span)])
        text = tok.decode(tok.encode(text)[:il])
        if chat and isinstance(tok, HfTokenizer):
            out.append(Prompt(tok.chat(text), il + template_len, ol))
        else:
            out.append(Prompt(text, il, ol))
    return out


def custom_prompts(path: str, n: int, rng: random.Random) -> list[Prompt]:
    """srtctl's custom JSONL dataset: ``{"input": {"messages", "max_tokens"}}`` or ``{"prompt", ...}`` lines."""
    try:
        with open(path, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
    except (OSError, ValueError) as exc:
        raise BenchError(f"benchmark.dataset_path {path!r} is not a readable JSONL file: {exc}") from None
    rng.shuffle(rows)
    out: list[Prompt] = []
    for row in rows:
        if len(out) >= n:
            break
        if "input" in row:
            messages = row["input"].get("messages", [])
            users = [m.get("content") for m in messages if m.get("role") == "user" and m.get("content")]
            text = users[-1] if users else (messages[-1].get("content") if messages else "")
            olen = int(row["input"].get("max_tokens", 128))
            plen = row["input"].get("num_tokens")
        elif "prompt" in row:
            text = row["prompt"]
            olen = int(row.get("expected_output_len") or row.get("max_tokens") or 128)
            plen = row.get("prompt_len")
        else:
            continue
        if text:
            out.append(Prompt(str(text), plen if isinstance(plen, int) and plen > 0 else len(str(text)) // 4, olen))
    if not out:
        raise BenchError(f"benchmark.dataset_path {path!r} holds no usable request")
    return out


# ---- HTTP: a minimal HTTP/1.1 client on asyncio streams ---------------------------------------------


class Origin:
    """Where requests go, and an optional pool of kept-alive connections (reuse_http_connections)."""

    def __init__(self, url: str, reuse: bool) -> None:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.reuse = reuse
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def exchange(self, path: str, payload: dict[str, Any], on_piece: Any) -> int:
        """POST ``payload`` and feed each body piece to ``on_piece``; the HTTP status."""
        conn = self.idle.pop() if self.reuse and self.idle else None
        if conn is None:
            conn = await asyncio.open_connection(self.host, self.port, limit=1 << 22)
        reader, writer = conn
        body = json.dumps(payload).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {os.environ.get('OPENAI_API_KEY', 'EMPTY')}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: {'keep-alive' if self.reuse else 'close'}\r\n\r\n"
        )
        keep = False
        try:
            writer.write(head.encode() + body)
            await writer.drain()
            status_line = await reader.readline()
            if not status_line:
                raise ConnectionError("connection closed before a response")
            status = int(status_line.split()[1])
            headers: dict[str, str] = {}
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b"\n", b""):
                    break
                k, _, v = line.decode("latin-1").partition(":")
                headers[k.strip().lower()] = v.strip().lower()
            if headers.get("transfer-encoding") == "chunked":
                while True:
                    size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        await reader.readline()
                        break
                    on_piece(await reader.readexactly(size))
                    await reader.readexactly(2)
                keep = True
            elif "content-length" in headers:
                on_piece(await reader.readexactly(int(headers["content-length"])))
                keep = True
            else:
                while piece := await reader.read(65536):
                    on_piece(piece)
            keep = keep and self.reuse and headers.get("connection") != "close"
            return status
        finally:
            if keep:
                self.idle.append(conn)
            else:
                writer.close()


@dataclass
class Output:
    """One request as the client saw it (srtctl's RequestFuncOutput)."""

    prompt_len: int
    success: bool = False
    latency: float = 0.0
    ttft: float = 0.0
    itl: list[float] = field(default_factory=list)
    chunks: list[str] = field(default_factory=list)
    output_tokens: int | None = None
    error: str = ""
    start_time: float = 0.0

    @property
    def text(self) -> str:
        """Everything generated."""
        return "".join(self.chunks)


@dataclass(frozen=True)
class Target:
    """The served model and how to address it."""

    origin: Origin
    model: str
    chat_endpoint: bool  # True: /v1/chat/completions with messages; False: /v1/completions with a prompt
    timeout_s: float = 6 * 3600.0


async def send(target: Target, prompt: Prompt) -> Output:
    """One streamed request with ``ignore_eos``; every failure becomes a failed Output."""
    out = Output(prompt.prompt_len)
    payload: dict[str, Any] = {
        "model": target.model,
        "temperature": 0.0,
        "max_tokens": prompt.output_len,
        "stream": True,
        "stream_options": {"include_usage": True},
        "ignore_eos": True,
    }
    if target.chat_endpoint:
        payload["messages"] = [{"role": "user", "content": prompt.text}]
    else:
        payload["prompt"] = prompt.text
    pending = [b""]
    start = time.perf_counter()
    out.start_time = start
    last = [start]
    errors: list[str] = []
    raw: list[bytes] = []

    def event(data: bytes) -> None:
        if data == b"[DONE]":
            return
        obj = json.loads(data)
        if obj.get("error"):
            errors.append(str(obj["error"])[:300])
        choices = obj.get("choices") or []
        if choices:
            c0 = choices[0]
            delta = c0.get("delta") if target.chat_endpoint else None
            text = (delta or {}).get("content") if target.chat_endpoint else c0.get("text")
            now = time.perf_counter()
            if not out.chunks:
                out.ttft = now - start
            else:
                out.itl.append(now - last[0])
            last[0] = now
            out.chunks.append(text or "")
        usage = obj.get("usage")
        if isinstance(usage, dict) and usage.get("completion_tokens") is not None:
            out.output_tokens = int(usage["completion_tokens"])

    def piece(data: bytes) -> None:
        raw.append(data)
        *lines, pending[0] = (pending[0] + data).split(b"\n")
        for line in lines:
            line = line.strip()
            if line.startswith(b"data:"):
                event(line[5:].strip())

    path = "/v1/chat/completions" if target.chat_endpoint else "/v1/completions"
    try:
        status = await asyncio.wait_for(target.origin.exchange(path, payload, piece), target.timeout_s)
        if pending[0].strip().startswith(b"data:"):
            event(pending[0].strip()[5:].strip())
        if status != 200:
            out.error = f"HTTP {status}: {b''.join(raw).decode('utf-8', 'replace')[:300]}"
        elif errors:
            out.error = errors[0]
        elif not out.chunks:
            out.error = "Never received a valid chunk to calculate TTFT."
        else:
            out.success = True
            out.latency = last[0] - start
    except Exception as exc:  # one failed request, never the whole run
        out.error = f"{type(exc).__name__}: {exc}"[:300]
    return out


async def run_level(
    target: Target, prompts: list[Prompt], rate: float, concurrency: int, progress: Progress | None = None
) -> tuple[list[Output], float]:
    """srtctl's arrival process (Poisson at ``rate``, or all at once) under a concurrency cap; outputs, seconds.
    ``progress`` counts each finished request."""
    gate = asyncio.Semaphore(concurrency)
    rng = random.Random(0)

    async def limited(p: Prompt) -> Output:
        async with gate:
            out = await send(target, p)
        if progress is not None:
            progress.request_done()
        return out

    start = time.perf_counter()
    tasks = []
    for p in prompts:
        tasks.append(asyncio.ensure_future(limited(p)))
        if rate != math.inf:
            await asyncio.sleep(rng.expovariate(rate))
    outputs = list(await asyncio.gather(*tasks))
    return outputs, time.perf_counter() - start


PROGRESS_FILE = "benchmark-progress.json"  # under <logs>; read by srt_tui/core/results/progress.py
PROGRESS_EVERY_S = 1.0


class Progress:
    """The run's progress in ``<logs>/benchmark-progress.json``, rewritten atomically at most once a second
    (and at every phase change) so monitors show the step, requests done of total and an ETA."""

    def __init__(self, logs: Path, levels: list[int], mult: int) -> None:
        self.path = logs / PROGRESS_FILE
        self.levels = levels
        self.totals = [c * mult for c in levels]
        self.started = time.time()
        self.step = 0
        self.phase = "starting"
        self.done = 0
        self.written = 0.0

    def begin(self, step: int, phase: str) -> None:
        """Level ``step`` (0-based) enters ``phase`` (warmup, measure)."""
        self.step, self.phase, self.done = step, phase, 0
        self.write(force=True)

    def request_done(self) -> None:
        """One measured request finished (ok or failed)."""
        self.done += 1
        self.write(force=self.done == self.totals[self.step])

    def finish(self) -> None:
        """Every level is done."""
        self.phase, self.step = "done", len(self.levels) - 1
        self.done = self.totals[-1] if self.totals else 0
        self.write(force=True)

    def write(self, force: bool = False) -> None:
        """Rewrite the file (throttled unless ``force``); a monitor never sees a half-written one."""
        now = time.time()
        if not force and now - self.written < PROGRESS_EVERY_S:
            return
        self.written = now
        doc = {
            "benchmark": "sa-bench",
            "started": self.started,
            "time": now,
            "phase": self.phase,
            "step": self.step + 1,
            "steps": len(self.levels),
            "concurrency": self.levels[self.step] if self.levels else 0,
            "done": self.done if self.phase != "warmup" else 0,
            "total": self.totals[self.step] if self.totals else 0,
            "done_all": sum(self.totals[: self.step]) + (self.done if self.phase != "warmup" else 0),
            "total_all": sum(self.totals),
        }
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        try:
            tmp.write_text(json.dumps(doc), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # progress is for watchers; the benchmark goes on without it


# ---- metrics: srtctl's benchmark_serving.py result fields ----------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """numpy's default (linear) percentile; 0 for no values, as srtctl reports them."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _stats(prefix: str, values: list[float], into: dict[str, Any]) -> None:
    """mean/median/std and p50/p90/p99 of ``values`` (seconds) in milliseconds, srtctl's key names."""
    into[f"mean_{prefix}_ms"] = (statistics.fmean(values) if values else 0.0) * 1000
    into[f"median_{prefix}_ms"] = percentile(values, 50) * 1000
    into[f"std_{prefix}_ms"] = (statistics.pstdev(values) if values else 0.0) * 1000
    for p in PERCENTILES:
        into[f"p{int(p)}_{prefix}_ms"] = percentile(values, p) * 1000


def _peak_output(outputs: list[Output], tok: WordTokenizer | HfTokenizer) -> float:
    """Highest 10-second moving average of output tokens per second, rebuilt from chunk arrival times."""
    good = [o for o in outputs if o.success and o.start_time > 0]
    if not good:
        return 0.0
    t0 = min(o.start_time for o in good)
    span = int(math.ceil(max(o.start_time + o.latency for o in good) - t0)) + 1
    buckets = [0.0] * span
    for o in good:
        t = o.start_time + o.ttft
        times = [t]
        for gap in o.itl:
            t += gap
            times.append(t)
        total = o.output_tokens or len(times)
        for i, at in enumerate(times):
            text = o.chunks[i] if i < len(o.chunks) else ""
            if text and isinstance(tok, HfTokenizer):
                n = len(tok.encode(text))
            else:
                n = total // len(times) + (1 if i < total % len(times) else 0)
            b = int(at - t0)
            if 0 <= b < span:
                buckets[b] += n
    window = 10
    if len(buckets) < window:
        return sum(buckets) / window
    return max(sum(buckets[i : i + window]) / window for i in range(len(buckets) - window + 1))


def level_result(outputs: list[Output], duration: float, tok: WordTokenizer | HfTokenizer) -> dict[str, Any]:
    """The metrics block of one concurrency level, keyed as srtctl's benchmark_serving.py keys them."""
    out_lens: list[int] = []
    ttfts: list[float] = []
    tpots: list[float] = []
    itls: list[float] = []
    e2els: list[float] = []
    total_input = 0
    for o in outputs:
        if not o.success:
            out_lens.append(0)
            continue
        n = o.output_tokens if o.output_tokens is not None else len(tok.encode(o.text))
        out_lens.append(n)
        total_input += o.prompt_len
        if n > 1:
            tpots.append((o.latency - o.ttft) / (n - 1))
        itls += o.itl
        ttfts.append(o.ttft)
        e2els.append(o.latency)
    completed = len(ttfts)
    total_output = sum(out_lens)
    dur = duration if duration > 0 else 1e-9
    result: dict[str, Any] = {
        "duration": duration,
        "completed": completed,
        "failed": len(outputs) - completed,
        "total_input_tokens": total_input,
        "total_output_tokens": total_output,
        "request_throughput": completed / dur,
        "request_goodput": None,
        "output_throughput": total_output / dur,
        "peak_output_tokens_per_s": _peak_output(outputs, tok),
        "total_token_throughput": (total_input + total_output) / dur,
        "input_lens": [o.prompt_len for o in outputs],
        "output_lens": out_lens,
        "ttfts": [o.ttft for o in outputs],
        "itls": [o.itl for o in outputs],
        "generated_texts": [o.text for o in outputs],
        "errors": [o.error for o in outputs],
    }
    for name, values in zip(METRICS, (ttfts, tpots, itls, e2els)):
        _stats(name, values, result)
    return result


# ---- result files and roll-up ------------------------------------------------------------------------


@dataclass(frozen=True)
class Gpus:
    """GPU counts for file names and the roll-up (srtctl's total / ctx / gen)."""

    total: int
    prefill: int
    decode: int
    disaggregated: bool


def result_dir(logs: Path, isl: int, osl: int, dataset_name: str, dataset_path: str | None) -> Path:
    """srtctl's directory: ``sa-bench_isl_<isl>_osl_<osl>`` or ``sa-bench_custom_<dataset stem>``."""
    if dataset_name == "custom":
        return logs / f"sa-bench_custom_{Path(dataset_path or 'dataset').stem}"
    return logs / f"sa-bench_isl_{isl}_osl_{osl}"


def result_name(concurrency: int, gpus: Gpus) -> str:
    """srtctl's file name for one concurrency level."""
    if gpus.disaggregated:
        return f"results_concurrency_{concurrency}_gpus_{gpus.total}_ctx_{gpus.prefill}_gen_{gpus.decode}.json"
    return f"results_concurrency_{concurrency}_gpus_{gpus.total}.json"


def _p99(data: dict[str, Any], metric: str) -> Any:
    value = data.get(f"p99_{metric}_ms")
    if value is not None:
        return value
    for entry in data.get(f"percentiles_{metric}_ms") or []:
        if isinstance(entry, (list, tuple)) and len(entry) == 2 and entry[0] == 99:
            return entry[1]
    return None


def _csv_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return str(value)


def write_rollup(logs: Path, isl: int | None, osl: int | None, gpus: Gpus, config_name: str) -> Path | None:
    """``benchmark-rollup.json`` and ``.csv`` over every ``sa-bench_*/results_*.json``, as srtctl's rollup.py."""
    runs: list[dict[str, Any]] = []
    rows: list[dict[str, str]] = []
    model = None
    working = gpus.total
    decode_working = gpus.decode if gpus.disaggregated else gpus.total
    for path in sorted(logs.glob("sa-bench_*/results_*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            print(f"[sa-bench] skipping {path}: {exc}", file=sys.stderr)
            continue
        model = model or data.get("model_id")
        runs.append(
            {
                "concurrency": data.get("max_concurrency"),
                "throughput_toks": data.get("output_throughput"),
                "request_throughput": data.get("request_throughput"),
                "ttft_mean_ms": data.get("mean_ttft_ms"),
                "ttft_p99_ms": _p99(data, "ttft"),
                "tpot_mean_ms": data.get("mean_tpot_ms"),
                "tpot_p99_ms": _p99(data, "tpot"),
                "itl_mean_ms": data.get("mean_itl_ms"),
                "itl_p99_ms": _p99(data, "itl"),
                "e2el_mean_ms": data.get("mean_e2el_ms"),
                "completed_requests": data.get("completed"),
                "total_input_tokens": data.get("total_input_tokens", data.get("total_input")),
                "total_output_tokens": data.get("total_output_tokens", data.get("total_output")),
            }
        )
        tpot = data.get("median_tpot_ms")
        ttt = data.get("total_token_throughput")
        row = {
            "Config": config_name,
            "Total GPU Count": gpus.total,
            "Decode GPU Count": decode_working,
            "Total Working GPU Count": working,
            "Decode Working GPU Count": decode_working,
            "Prefill Working GPU Count": gpus.prefill if gpus.disaggregated else 0,
            "Concurrency": data.get("max_concurrency"),
            "Total Token Throughput": ttt,
            "Output Token Throughput": data.get("output_throughput"),
            "Median TTFT": data.get("median_ttft_ms"),
            "Median TPOT": tpot,
            "Median ITL": data.get("median_itl_ms"),
            "P90 Decode Running Requests": None,
            "Output Token Throughput per User": 1000.0 / tpot if tpot else None,
            "Total Token Throughput per GPU": ttt / working if ttt is not None and working else None,
        }
        rows.append({k: _csv_value(v) for k, v in row.items()})
    if not runs:
        return None
    runs.sort(key=lambda r: r["concurrency"] or 0)
    rows.sort(key=lambda r: int(r["Concurrency"] or 0))
    rollup = {
        "benchmark_type": "sa-bench",
        "timestamp": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
        "config": {"model": model, "isl": isl, "osl": osl},
        "runs": runs,
    }
    out = logs / "benchmark-rollup.json"
    out.write_text(json.dumps(rollup, indent=2) + "\n", encoding="utf-8")
    with (logs / "benchmark-rollup.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=ROLLUP_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    return out


# ---- the run -----------------------------------------------------------------------------------------


def parse_concurrencies(text: str) -> list[int]:
    """``4x8x16`` or ``4,8`` into positive integers."""
    try:
        levels = [int(x) for x in text.replace(",", "x").split("x") if x.strip()]
    except ValueError:
        levels = []
    if not levels or any(c < 1 for c in levels):
        raise BenchError(f"concurrencies must be positive integers like 4x8x16, not {text!r}")
    return levels


async def slow_down(origin_urls: list[str], sleep: float | None) -> None:
    """SGLang's ``/slow_down`` on each decode worker (srtctl's slow_down_* keys); failures only warn."""
    for base in origin_urls:
        status = await Origin(base, False).exchange("/slow_down", {"forward_sleep_time": sleep}, lambda _: None)
        if status >= 400:
            print(f"[sa-bench] warning: POST {base}/slow_down -> HTTP {status}", flush=True)


async def smoke(target: Target) -> None:
    """srtctl's check before the run: one small chat completion, its first 200 characters printed."""
    origin = Origin(f"http://{target.origin.host}:{target.origin.port}", False)
    body: list[bytes] = []
    payload = {
        "model": target.model,
        "messages": [{"role": "user", "content": "Hello"}],
        "stream": False,
        "max_tokens": 10,
    }
    try:
        status = await asyncio.wait_for(origin.exchange("/v1/chat/completions", payload, body.append), 120)
        print(f"[sa-bench] smoke test /v1/chat/completions: HTTP {status} {b''.join(body)[:200].decode()}", flush=True)
    except Exception as exc:
        print(f"[sa-bench] smoke test /v1/chat/completions failed: {exc}", flush=True)


async def run(args: argparse.Namespace) -> int:
    """Every concurrency level in order; 1 when a level completed no request at all."""
    levels = parse_concurrencies(args.concurrencies)
    rate = math.inf if str(args.req_rate).lower() == "inf" else float(args.req_rate)
    if rate <= 0:
        raise BenchError(f"req_rate must be positive or inf, not {args.req_rate!r}")
    tok = load_tokenizer(args.tokenizer, args.custom_tokenizer)
    chat_endpoint = args.use_chat_template and not isinstance(tok, HfTokenizer)
    if chat_endpoint:
        print("[sa-bench] no tokenizer here: the chat template is applied by the server (/v1/chat/completions)")
    target = Target(Origin(args.url, args.reuse_http_connections), args.model, chat_endpoint)
    gpus = Gpus(args.total_gpus, args.prefill_gpus, args.decode_gpus, args.disaggregated)
    logs = Path(args.logs)
    out_dir = result_dir(logs, args.isl, args.osl, args.dataset_name, args.dataset_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    print(
        f"SA-Bench Config: endpoint={args.url}; isl={args.isl}; osl={args.osl}; concurrencies={args.concurrencies}; "
        f"req_rate={args.req_rate}; model={args.model}; dataset={args.dataset_name}; "
        f"http_connection_mode={'pooled' if args.reuse_http_connections else 'per_request'}; tokenizer={tok.name}",
        flush=True,
    )
    await smoke(target)

    def prompts(n: int) -> list[Prompt]:
        if args.dataset_name == "custom":
            return custom_prompts(args.dataset_path, n, rng)
        return random_prompts(tok, args.isl, args.osl, n, args.random_range_ratio, args.use_chat_template, rng)

    rc = 0
    progress = Progress(logs, levels, args.num_prompts_mult)
    for step, c in enumerate(levels):
        if args.num_warmup_mult > 0:
            progress.begin(step, "warmup")
            await run_level(target, prompts(c * args.num_warmup_mult), WARMUP_REQUEST_RATE, c)
        progress.begin(step, "measure")
        n = c * args.num_prompts_mult
        print(f"Running benchmark with concurrency: {c} ({n} prompts)", flush=True)
        undo: asyncio.Task[None] | None = None
        if args.slow_down_server:
            await slow_down(args.slow_down_server, args.slow_down_sleep_time)

            async def restore() -> None:
                await asyncio.sleep(args.slow_down_wait_time)
                await slow_down(args.slow_down_server, None)

            undo = asyncio.ensure_future(restore())
        outputs, duration = await run_level(target, prompts(n), rate, c, progress)
        if undo is not None:
            await undo
        result: dict[str, Any] = {
            "date": datetime.now().strftime("%Y%m%d-%H%M%S"),
            "backend": "openai-chat" if chat_endpoint else "dynamo",
            "model_id": args.model,
            "tokenizer_id": args.tokenizer,
            "best_of": 1,
            "num_prompts": n,
            "request_rate": "inf" if rate == math.inf else rate,
            "burstiness": 1.0,
            "max_concurrency": c,
            **level_result(outputs, duration, tok),
            "reuse_http_connections": args.reuse_http_connections,
        }
        (out_dir / result_name(c, gpus)).write_text(json.dumps(result), encoding="utf-8")
        failures = [e for e in result["errors"] if e]
        print(
            f"concurrency {c}: {result['completed']}/{n} ok, {result['request_throughput']:.2f} req/s, "
            f"{result['output_throughput']:.1f} output tok/s, median TTFT {result['median_ttft_ms']:.1f} ms, "
            f"median TPOT {result['median_tpot_ms']:.2f} ms" + (f"; first error: {failures[0]}" if failures else ""),
            flush=True,
        )
        if result["completed"] == 0:
            rc = 1
    progress.finish()
    rollup = write_rollup(logs, args.isl if args.dataset_name != "custom" else None, args.osl, gpus, args.config_name)
    print(f"SA-Bench complete. Results in {out_dir}; roll-up {rollup}", flush=True)
    return rc


def parser() -> argparse.ArgumentParser:
    """The command line srt-tui renders (one flag per srtctl sa-bench key)."""
    p = argparse.ArgumentParser(prog="sa_bench.py", description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True, help="frontend base URL, http://host:port")
    p.add_argument("--model", required=True, help="served model name")
    p.add_argument("--tokenizer", default="/model", help="tokenizer path or hub id (the model)")
    p.add_argument("--isl", type=int, default=0)
    p.add_argument("--osl", type=int, default=0)
    p.add_argument("--concurrencies", required=True, help="4x8x16")
    p.add_argument("--req-rate", default="inf")
    p.add_argument("--random-range-ratio", type=float, default=0.8)
    p.add_argument("--num-prompts-mult", type=int, default=10)
    p.add_argument("--num-warmup-mult", type=int, default=2)
    p.add_argument("--custom-tokenizer", default=None)
    p.add_argument("--use-chat-template", action="store_true")
    p.add_argument("--dataset-name", choices=("random", "custom"), default="random")
    p.add_argument("--dataset-path", default=None)
    p.add_argument("--reuse-http-connections", action="store_true")
    p.add_argument("--slow-down-server", action="append", default=[])
    p.add_argument("--slow-down-sleep-time", type=float, default=1.0)
    p.add_argument("--slow-down-wait-time", type=float, default=60.0)
    p.add_argument("--total-gpus", type=int, default=0)
    p.add_argument("--prefill-gpus", type=int, default=0)
    p.add_argument("--decode-gpus", type=int, default=0)
    p.add_argument("--disaggregated", action="store_true")
    p.add_argument("--logs", default="/logs", help="log directory: result dirs and the roll-up go here")
    p.add_argument("--config-name", default="srt-tui", help="the roll-up's Config column (the job name)")
    p.add_argument("--seed", type=int, default=0)
    return p


def _raise_open_files() -> None:
    """As srtctl's ``ulimit -n 65536``: one socket per in-flight request needs file descriptors."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 65536 if hard == resource.RLIM_INFINITY else min(65536, hard)
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ImportError, ValueError, OSError):
        pass  # a container that forbids it: srtctl ignores this failure too


def main(argv: list[str] | None = None) -> int:
    """Run sa-bench; exit 2 with one line for bad settings, 1 when a level had no successful request."""
    args = parser().parse_args(argv)
    _raise_open_files()
    try:
        return asyncio.run(run(args))
    except BenchError as exc:
        print(f"sa-bench: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
