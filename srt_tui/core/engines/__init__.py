"""Engine registry: each engine is a class with declared capabilities (see `base.Engine`)."""

from __future__ import annotations

from .atom import Atom
from .base import Engine
from .mocker import Mocker
from .sglang import SGLang
from .trtllm import TRTLLM
from .vllm import VLLM

ENGINES: dict[str, Engine] = {e.name: e for e in (SGLang(), VLLM(), TRTLLM(), Atom(), Mocker())}


def get_engine(name: str) -> Engine:
    """The engine adapter for a recipe's `engine.type`."""
    return ENGINES[name]
