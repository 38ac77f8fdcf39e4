"""An error line names its field once: `FILE:LINE: field: message`, the message not opening with the field again.

Operator pass: a srtctl TRT-LLM recipe with `frontend.type: trtllm_serve` and prefill/decode workers printed
`:113: frontend.type: frontend.type: trtllm_serve serves one aggregated worker…`. The same repeat was in a key
a validator names (engine.connector: `connector`: …) and in a dashed option name (srun_options.--mpi: `--mpi`: …).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.core.core_helpers import cli

HEAD = "name: t\nmodel: {path: mock-model}\n"
CASES = {
    "trtllm_serve-pd": (
        HEAD + "engine: trtllm\nfrontend: {type: trtllm_serve, enable_multiple_frontends: false}\n"
        "roles:\n  prefill: {nodes: 1, workers: 1}\n  decode: {nodes: 1, workers: 1}\n",
        "frontend.type: trtllm_serve serves one aggregated worker directly",
    ),
    "engine-block-key": (
        HEAD + "engine: {type: atom, connector: nixl}\nroles:\n  agg: {workers: 1, gpus: 1}\n",
        "engine.connector: atom moves KV over mooncake only",
    ),
    "dashed-option": (
        HEAD + "engine: mocker\nroles:\n  agg: {workers: 1, gpus: 1}\nfrontend: {type: none}\n"
        "srun_options: {--mpi: pmix}\n",
        "srun_options.--mpi: an option name is written without its dashes (fix: write `mpi`)",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_field_is_said_once(case: str, tmp_path: Path) -> None:
    text, says = CASES[case]
    recipe = tmp_path / "r.yaml"
    recipe.write_text(text, encoding="utf-8")
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and says in lines[0], lines
    m = re.fullmatch(r"srt-tui: error: .+?:\d+: ([^ ]+): (.+)", lines[0])
    assert m, lines[0]
    field, message = m.groups()
    last = field.rsplit(".", 1)[-1]
    assert not message.startswith((f"{field}:", f"`{field}`:", f"`{last}`:")), lines[0]
