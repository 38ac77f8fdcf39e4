"""A worker's DP and EP are said where its TP is (operator pass: srtctl's `vllm/deepseek-r1/disagg-h100-16gpu`,
`data-parallel-size: 16`, read `1 worker × 16 GPUs (tensor-parallel-size 1)`): each engine adapter declares the
flags that carry them, beside its TP flags, and the dry-run says each role's parallelism."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.engines import get_engine
from srt_tui.core.engines.base import parallelism
from tests.core.core_helpers import cli, write_yaml

DP16_EP = {"tensor-parallel-size": 1, "data-parallel-size": 16, "enable-expert-parallel": True}


@pytest.mark.parametrize(
    ("engine", "args", "words"),
    [
        ("vllm", DP16_EP, "TP 1 × DP 16 · EP 16"),
        ("vllm", {"tensor-parallel-size": 2, "data-parallel-size": 4}, "TP 2 × DP 4"),
        ("vllm", {"tp": 4, "enable-expert-parallel": True}, "TP 4 · EP 4"),
        ("sglang", {"tp-size": 8, "dp-size": 8, "enable-dp-attention": True, "ep-size": 8},
         "TP 8 · DP attention 8 · EP 8"),
        ("sglang", {"tp-size": 4, "dp-size": 2}, "TP 4 × DP 2"),
        ("sglang", {"tp-size": 8, "expert-parallel-size": 8}, "TP 8 · EP 8"),
        ("trtllm", {"tensor_parallel_size": 4, "moe_expert_parallel_size": 4, "enable_attention_dp": True},
         "TP 4 · DP attention 4 · EP 4"),
        ("trtllm", {"tensor_parallel_size": 8, "moe_expert_parallel_size": 8, "enable_attention_dp": False},
         "TP 8 · EP 8"),
        ("sglang", {"tp-size": 4}, "TP 4"),
        ("atom", {}, ""),
    ],
)  # fmt: skip
def test_each_engine_reads_dp_and_ep_from_the_flags_it_declares(engine: str, args: dict[str, Any], words: str) -> None:
    assert parallelism(get_engine(engine), args).words() == words


def test_the_dry_run_says_each_roles_dp_and_ep(tmp_path: Path) -> None:
    role = {"nodes": 2, "workers": 1, "gpus": 16, "args": DP16_EP}
    recipe = write_yaml(
        tmp_path / "dp16.yaml",
        {
            "name": "dp16",
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": "vllm",
            "frontend": {"type": "dynamo", "enable_multiple_frontends": False},
            "roles": {"prefill": role, "decode": role},
        },
    )
    proc = cli("dry-run", "-f", str(recipe), "-p", "nvidia-h100", "--no-script", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "prefill: 1 worker × 16 GPUs (TP 1 × DP 16 · EP 16) on 2 nodes" in lines[:8], lines[:8]
    assert "decode: 1 worker × 16 GPUs (TP 1 × DP 16 · EP 16) on 2 nodes" in lines[:8]
