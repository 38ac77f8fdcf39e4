"""srtctl's gpqa: `sglang.test.run_eval --eval-name gpqa` with its defaults."""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core.benchmark.types.run_eval import RunEvalType


class Gpqa(RunEvalType):
    """gpqa through `run_eval`: 198 examples, 32768 max tokens, 8 repeats, 128 threads."""

    name: ClassVar[str] = "gpqa"
    examples: ClassVar[int] = 198
    max_tokens: ClassVar[int] = 32768
    repeat: ClassVar[int] = 8
    threads: ClassVar[int] = 128
