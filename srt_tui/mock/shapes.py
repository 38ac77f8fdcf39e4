"""JSON documents of the info endpoints, shaped the way SGLang / vLLM and their routers expect."""

from __future__ import annotations

import os
from typing import Any

from srt_tui import __version__
from srt_tui.mock.config import WorkerConfig, visibility_env
from srt_tui.mock.state import WorkerState

MOCK_VERSION = f"{__version__}+srt-mock"
MAX_MODEL_LEN = 131072


def mock_identity(config: WorkerConfig) -> dict[str, Any]:
    """The ``srt_mock`` block: which worker this is and which GPU mask it was given."""
    return {
        "name": config.name,
        "role": config.role,
        "flavor": config.flavor,
        "pid": os.getpid(),
        "hostname": config.hostname,
        "port": config.port,
        "visible_devices_env": config.visible_devices_env,
        "visible_devices": config.visible_devices,
        "visibility_env": visibility_env(),
    }


def server_info(config: WorkerConfig, state: WorkerState) -> dict[str, Any]:
    """``/server_info``: the fields sglang-router reads at registration, plus the mock identity."""
    info: dict[str, Any] = {
        "model_path": config.model,
        "tokenizer_path": config.model,
        "served_model_name": config.model,
        "disaggregation_mode": config.disaggregation_mode,
        "tp_size": config.tp_size,
        "dp_size": config.dp_size,
        "host": config.host,
        "port": config.port,
        "version": MOCK_VERSION,
        "context_length": MAX_MODEL_LEN,
        "internal_states": [{"last_gen_throughput": 0.0, "num_running_reqs": state.running}],
        "srt_mock": mock_identity(config),
    }
    if config.bootstrap_port is not None:
        info["disaggregation_bootstrap_port"] = config.bootstrap_port
    return info


def model_info(config: WorkerConfig) -> dict[str, Any]:
    """``/model_info``: SGLang's model description."""
    return {
        "model_path": config.model,
        "tokenizer_path": config.model,
        "served_model_name": config.model,
        "is_generation": True,
        "preferred_sampling_params": None,
        "weight_version": "default",
        "has_image_understanding": False,
        "has_audio_understanding": False,
        "model_type": "mock",
        "architectures": ["MockForCausalLM"],
    }


def models_list(config: WorkerConfig, created: int) -> dict[str, Any]:
    """``/v1/models``: the OpenAI list with the one served model."""
    return {
        "object": "list",
        "data": [
            {
                "id": config.model,
                "object": "model",
                "created": created,
                "owned_by": config.flavor,
                "root": config.model,
                "parent": None,
                "max_model_len": MAX_MODEL_LEN,
            }
        ],
    }


def load_report(config: WorkerConfig, state: WorkerState) -> Any:
    """``/get_load``: each DP rank's work in flight for SGLang, ``{"load": N}`` for vLLM (what each router parses)."""
    requests, tokens = state.load()
    if config.flavor == "vllm":
        return {"load": requests}
    if state.load_override is not None:  # a test's fixed load sits on rank 0
        return [
            {"dp_rank": rank, "num_reqs": requests if rank == 0 else 0, "num_tokens": tokens if rank == 0 else 0}
            for rank in range(config.dp_size)
        ]
    return [
        {"dp_rank": rank, "num_reqs": counts.running, "num_tokens": counts.running_tokens}
        for rank, counts in enumerate(state.dp.ranks)
    ]
