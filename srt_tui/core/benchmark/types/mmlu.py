"""srtctl's mmlu: `sglang.test.run_eval --eval-name mmlu` with its defaults."""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core.benchmark.types.run_eval import RunEvalType


class Mmlu(RunEvalType):
    """mmlu through `run_eval`: 200 examples, 2048 max tokens, 8 repeats, 512 threads."""

    name: ClassVar[str] = "mmlu"
    examples: ClassVar[int] = 200
    max_tokens: ClassVar[int] = 2048
    repeat: ClassVar[int] = 8
    threads: ClassVar[int] = 512
