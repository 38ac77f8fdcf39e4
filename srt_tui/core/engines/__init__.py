"""Engine registry: each engine is a class with declared capabilities (see `base.Engine`)."""

from __future__ import annotations

from srt_tui.core.engines.atom import Atom
from srt_tui.core.engines.base import Engine
from srt_tui.core.engines.mocker import Mocker
from srt_tui.core.engines.sglang import SGLang
from srt_tui.core.engines.trtllm import TRTLLM
from srt_tui.core.engines.vllm import VLLM

ENGINES: dict[str, Engine] = {e.name: e for e in (SGLang(), VLLM(), TRTLLM(), Atom(), Mocker())}


def get_engine(name: str) -> Engine:
    """The engine adapter for a recipe's `engine.type`."""
    return ENGINES[name]
