"""Engine registry: each engine is a class with declared capabilities (see `base.Engine`), registered by name.

The built-ins are registered in the one table below; another engine's module calls `register_engine` for itself.
"""

from __future__ import annotations

from srt_tui.core import registry
from srt_tui.core.engines.atom import Atom
from srt_tui.core.engines.base import Engine
from srt_tui.core.engines.mocker import Mocker
from srt_tui.core.engines.sglang import SGLang
from srt_tui.core.engines.trtllm import TRTLLM
from srt_tui.core.engines.vllm import VLLM

#: every registered engine by its `engine.type` (a live view of the registry: later registrations appear)
ENGINES: dict[str, Engine] = registry.table("engine", Engine)


def register_engine(engine: Engine) -> Engine:
    """Make an engine available to recipes under its `name` (`engine.type`)."""
    return registry.register("engine", engine.name, engine)


for _builtin in (SGLang(), VLLM(), TRTLLM(), Atom(), Mocker()):
    register_engine(_builtin)


def get_engine(name: str) -> Engine:
    """The engine adapter for a recipe's `engine.type`."""
    return ENGINES[name]
