"""Generation requests and responses for ``/generate``, ``/v1/completions`` and ``/v1/chat/completions``.

Pure functions: parse a request body into a GenRequest, then build whole or streamed response
bodies. The first generated token is the worker name so any client can tell who answered.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from srt_tui.mock.config import WorkerConfig

Kind = Literal["generate", "completions", "chat"]
KIND_BY_PATH: dict[str, Kind] = {
    "/generate": "generate",
    "/v1/completions": "completions",
    "/v1/chat/completions": "chat",
}
DEFAULT_MAX_TOKENS = 16
MAX_TOKENS_CAP = 65536
BOOTSTRAP_KEYS = ("bootstrap_host", "bootstrap_port", "bootstrap_room")
DONE_EVENT = b"data: [DONE]\n\n"


def _count_words(value: Any) -> int:
    """Prompt length in pretend tokens: words of text, length of token-id lists, summed over lists."""
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, list):
        if value and all(isinstance(v, int) for v in value):
            return len(value)
        return sum(_count_words(v) for v in value)
    if isinstance(value, dict):
        return _count_words(value.get("text", "")) if value.get("type", "text") == "text" else 0
    return 0


def _int_field(body: dict[str, Any], *names: str) -> int | None:
    """The first present integer field among ``names``; other types are a ValueError."""
    for name in names:
        value = body.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer")
        return value
    return None


@dataclass(frozen=True)
class GenRequest:
    """What the mock needs from a generation request body."""

    kind: Kind
    model: str
    prompt_tokens: int
    max_tokens: int
    stream: bool
    include_usage: bool
    request_id: str
    bootstrap: dict[str, Any] = field(default_factory=dict)
    kv_transfer_params: dict[str, Any] | None = None


def parse_generation(kind: Kind, body: Any, default_model: str) -> GenRequest:
    """Validate a generation body; a ValueError becomes a 400."""
    if not isinstance(body, dict):
        raise ValueError("request body must be a JSON object")
    if kind == "generate":
        params = body.get("sampling_params") or {}
        if not isinstance(params, dict):
            raise ValueError("sampling_params must be an object")
        prompt = body.get("text") if body.get("text") is not None else body.get("input_ids")
        if prompt is None:
            raise ValueError("either text or input_ids is required")
        max_tokens = _int_field(params, "max_new_tokens")
        request_id = str(body.get("rid") or uuid.uuid4().hex)
    elif kind == "completions":
        prompt = body.get("prompt")
        if prompt is None:
            raise ValueError("prompt is required")
        max_tokens = _int_field(body, "max_tokens")
        request_id = f"cmpl-{uuid.uuid4().hex}"
    else:
        prompt = body.get("messages")
        if not isinstance(prompt, list) or not prompt:
            raise ValueError("messages must be a non-empty list")
        prompt = [m.get("content", "") if isinstance(m, dict) else m for m in prompt]
        max_tokens = _int_field(body, "max_completion_tokens", "max_tokens")
        request_id = f"chatcmpl-{uuid.uuid4().hex}"
    if max_tokens is not None and max_tokens < 0:
        raise ValueError("max tokens must not be negative")
    stream_options = body.get("stream_options") or {}
    kv = body.get("kv_transfer_params")
    return GenRequest(
        kind=kind,
        model=str(body.get("model") or default_model),
        prompt_tokens=_count_words(prompt),
        max_tokens=min(MAX_TOKENS_CAP, max(1, DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens)),
        stream=bool(body.get("stream", False)),
        include_usage=isinstance(stream_options, dict) and bool(stream_options.get("include_usage")),
        request_id=request_id,
        bootstrap={key: body[key] for key in BOOTSTRAP_KEYS if key in body},
        kv_transfer_params=kv if isinstance(kv, dict) else None,
    )


def make_tokens(worker_name: str, count: int) -> list[str]:
    """``count`` pretend tokens, the first being the worker name."""
    return [worker_name, *(f"tok{i}" for i in range(1, count))]


def piece(tokens: list[str], index: int) -> str:
    """Text of token ``index`` as streamed: tokens after the first carry a leading space."""
    return tokens[index] if index == 0 else f" {tokens[index]}"


def sse(obj: Any) -> bytes:
    """One server-sent event carrying a JSON object."""
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def error_body(message: str, status: int, kind: str = "BadRequestError") -> dict[str, Any]:
    """OpenAI-style error object (also returned by SGLang's OpenAI server)."""
    return {"object": "error", "message": message, "type": kind, "code": status}


def kv_params_for_decode(config: WorkerConfig) -> dict[str, Any]:
    """KV-transfer parameters a vLLM prefill hands back for the decode leg (nixl connector shape)."""
    return {
        "do_remote_prefill": True,
        "do_remote_decode": False,
        "remote_engine_id": f"mock-engine-{config.name}",
        "remote_block_ids": [1, 2, 3],
        "remote_host": config.hostname if config.host in ("0.0.0.0", "::", "") else config.host,
        "remote_port": config.bootstrap_port or config.port,
        "tp_size": config.tp_size,
    }


@dataclass
class Reply:
    """Builds the response bodies of one generation request."""

    req: GenRequest
    config: WorkerConfig
    tokens: list[str]
    mock: dict[str, Any]
    kv_out: dict[str, Any] | None = None
    created: int = field(default_factory=lambda: int(time.time()))

    @property
    def text(self) -> str:
        """All generated text."""
        return " ".join(self.tokens)

    def usage(self, completion: int | None = None) -> dict[str, int]:
        """OpenAI usage block."""
        done = len(self.tokens) if completion is None else completion
        return {
            "prompt_tokens": self.req.prompt_tokens,
            "completion_tokens": done,
            "total_tokens": self.req.prompt_tokens + done,
        }

    def _meta(self, completion: int, finished: bool) -> dict[str, Any]:
        """SGLang ``meta_info`` of a ``/generate`` answer."""
        meta: dict[str, Any] = {
            "id": self.req.request_id,
            "prompt_tokens": self.req.prompt_tokens,
            "completion_tokens": completion,
            "cached_tokens": 0,
            "finish_reason": {"type": "length", "length": completion} if finished else None,
        }
        meta.update(self.req.bootstrap)
        return meta

    def _extras(self, obj: dict[str, Any], first: bool, last: bool) -> dict[str, Any]:
        """Add the mock identity (first piece) and outgoing KV parameters (last piece)."""
        if first:
            obj["srt_mock"] = self.mock
        if last and self.kv_out is not None:
            obj["kv_transfer_params"] = self.kv_out
        return obj

    def whole(self) -> dict[str, Any]:
        """The non-streamed response body."""
        n = len(self.tokens)
        if self.req.kind == "generate":
            body: dict[str, Any] = {
                "text": self.text,
                "output_ids": list(range(1, n + 1)),
                "meta_info": self._meta(n, True),
            }
        elif self.req.kind == "completions":
            body = {
                "id": self.req.request_id,
                "object": "text_completion",
                "created": self.created,
                "model": self.req.model,
                "choices": [{"index": 0, "text": self.text, "logprobs": None, "finish_reason": "length"}],
                "usage": self.usage(),
            }
        else:
            body = {
                "id": self.req.request_id,
                "object": "chat.completion",
                "created": self.created,
                "model": self.req.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.text},
                        "logprobs": None,
                        "finish_reason": "length",
                    }
                ],
                "usage": self.usage(),
            }
        return self._extras(body, True, True)

    def chunk(self, index: int) -> dict[str, Any]:
        """The streamed event carrying token ``index``."""
        last = index == len(self.tokens) - 1
        finish = "length" if last else None
        if self.req.kind == "generate":
            body: dict[str, Any] = {
                "text": " ".join(self.tokens[: index + 1]),
                "output_ids": list(range(1, index + 2)),
                "meta_info": self._meta(index + 1, last),
            }
        elif self.req.kind == "completions":
            body = {
                "id": self.req.request_id,
                "object": "text_completion",
                "created": self.created,
                "model": self.req.model,
                "choices": [{"index": 0, "text": piece(self.tokens, index), "logprobs": None, "finish_reason": finish}],
            }
        else:
            delta: dict[str, Any] = {"content": piece(self.tokens, index)}
            if index == 0:
                delta = {"role": "assistant", **delta}
            body = {
                "id": self.req.request_id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.req.model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }
        return self._extras(body, index == 0, last)

    def usage_chunk(self) -> dict[str, Any] | None:
        """The trailing usage event asked for with ``stream_options.include_usage`` (OpenAI kinds only)."""
        if self.req.kind == "generate" or not self.req.include_usage:
            return None
        kind = "text_completion" if self.req.kind == "completions" else "chat.completion.chunk"
        return {
            "id": self.req.request_id,
            "object": kind,
            "created": self.created,
            "model": self.req.model,
            "choices": [],
            "usage": self.usage(),
        }
