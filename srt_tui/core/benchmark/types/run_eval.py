"""srtctl's accuracy evaluations through SGLang's `sglang.test.run_eval`: the shared script and command.

gsm8k, gpqa, mmlu and longbenchv2 each have their own module; this holds what they share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.benchmark.types.checks import positive
from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router

# $1 logs dir, $2 result-file prefix in /tmp, then the evaluation command (sglang.test.run_eval, which writes
# its results to /tmp/<eval>_<model>.{json,html} itself): only files this run made are copied, i.e. this
# user's regular files (no links) newer than a marker taken in a private `mktemp -d` before the run
ACCURACY_SH = """set -e
logs=$1; prefix=$2; shift 2
mkdir -p "$logs/accuracy"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT; : >"$scratch/started"
export OPENAI_API_KEY="${OPENAI_API_KEY:-EMPTY}"
"$@"
for ext in json html; do
  newest=""
  for f in /tmp/"$prefix"_*."$ext"; do
    if [ -f "$f" ] && [ ! -L "$f" ] && [ -O "$f" ] && [ "$f" -nt "$scratch/started" ] &&
      { [ -z "$newest" ] || [ "$f" -nt "$newest" ]; }; then newest=$f; fi
  done
  if [ -n "$newest" ]; then cp -P "$newest" "$logs/accuracy/"; echo "saved $logs/accuracy/${newest##*/}"; fi
done"""

#: the keys gpqa and mmlu read
EVAL = frozenset({"num_examples", "max_tokens", "repeat", "num_threads"})


def opt(flag: str, value: object) -> list[str]:
    """`[flag, value]`, or nothing when the recipe left it unset."""
    return [] if value is None else [flag, str(value)]


def run_eval(ctx: BenchContext, name: str, prefix: str, args: list[str]) -> tuple[str, ...]:
    """`run_eval --eval-name <name>` against the job, its result files copied into the logs."""
    head = ["bash", "-c", ACCURACY_SH, "srt-accuracy", ph.LOGS, prefix]
    command = ["python3", "-m", "sglang.test.run_eval", "--base-url", ctx.public_url, "--model", ctx.served]
    return (*head, *command, "--eval-name", name, *args)


def eval_problems(b: BenchmarkSpec) -> list[Problem]:
    """The counts an evaluation reads, positive."""
    return positive(b, ("num_examples", "max_tokens", "repeat", "num_threads", "max_context_length"))


class RunEvalType(BenchmarkType):
    """An evaluation with srtctl's defaults for examples, max tokens, repeats and threads (gpqa, mmlu)."""

    reads: ClassVar[frozenset[str]] = COMMON | EVAL
    examples: ClassVar[int]
    max_tokens: ClassVar[int]
    repeat: ClassVar[int]
    threads: ClassVar[int]

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """srtctl's `sglang.test.run_eval --eval-name <name>` with its defaults."""
        args = [
            *("--num-examples", str(b.num_examples or self.examples)),
            *("--max-tokens", str(b.max_tokens or self.max_tokens)),
            *("--repeat", str(b.repeat or self.repeat)),
            *("--num-threads", str(b.num_threads or self.threads)),
        ]
        return run_eval(ctx, self.name, self.name, args)

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """Its counts, positive."""
        return eval_problems(b)
