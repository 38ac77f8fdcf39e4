"""The GPU tools a compute node may answer with, what each one reports, and what it implies for a profile.

This is a data table, not a vendor switch: each tool names the commands the node probe runs, how to
read their output, and the profile keys that follow when that tool is the one that answers. A new
accelerator is a new row here (and a new profile), never a branch in the proposal code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GpuInfo:
    """One GPU as a tool reports it."""

    name: str
    memory: str = ""
    driver: str = ""


@dataclass(frozen=True)
class GpuTool:
    """A GPU tool: the commands the probe job runs and the profile keys its answer implies."""

    name: str
    commands: tuple[tuple[str, ...], ...]
    parse: Callable[[list[str]], list[GpuInfo]]
    visible_devices_env: str
    device_mounts: tuple[str, ...] = ()
    exporter: dict[str, Any] | None = None
    why_mask: str = ""
    why_mounts: str = ""


def _nvidia(outputs: list[str]) -> list[GpuInfo]:
    """``nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader``: one CSV row per GPU."""
    gpus: list[GpuInfo] = []
    for line in (outputs[0] if outputs else "").splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) >= 3 and cells[0]:
            gpus.append(GpuInfo(name=cells[0], driver=cells[1], memory=cells[2]))
    return gpus


def _json(text: str) -> Any:
    """JSON from a tool's stdout, skipping warnings some versions print before the document."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        return json.loads(text[start:])
    except ValueError:
        return None


def _amd_records(doc: Any) -> list[dict[str, Any]]:
    """amd-smi's per-GPU records: a top-level list (ROCm 6.x) or ``{"gpu_data": [...]}`` (newer)."""
    if isinstance(doc, dict):
        doc = doc.get("gpu_data", [doc])
    return [rec for rec in doc if isinstance(rec, dict)] if isinstance(doc, list) else []


def _memory(vram: Any) -> str:
    """``{"size": {"value": 196592, "unit": "MB"}}`` or ``{"size": "196592 MB"}`` -> ``196592 MB``."""
    if not isinstance(vram, dict):
        return ""
    size = vram.get("size")
    if isinstance(size, dict):
        return f"{size.get('value', '')} {size.get('unit', '')}".strip()
    return str(size or "")


def _amd_smi(outputs: list[str]) -> list[GpuInfo]:
    """``amd-smi static --asic --vram --driver --json``, else ``amd-smi list --json`` (identity only)."""
    gpus: list[GpuInfo] = []
    for rec in _amd_records(_json(outputs[0]) if outputs else None):
        raw_asic, raw_driver = rec.get("asic"), rec.get("driver")
        asic: dict[str, Any] = raw_asic if isinstance(raw_asic, dict) else {}
        driver: dict[str, Any] = raw_driver if isinstance(raw_driver, dict) else {}
        name = str(asic.get("market_name") or asic.get("device_id") or f"GPU {rec.get('gpu', len(gpus))}")
        gpus.append(GpuInfo(name=name, memory=_memory(rec.get("vram")), driver=str(driver.get("version") or "")))
    if gpus or len(outputs) < 2:
        return gpus
    for rec in _amd_records(_json(outputs[1])):
        gpus.append(GpuInfo(name=f"GPU {rec.get('gpu', len(gpus))} {rec.get('bdf', '')}".strip()))
    return gpus


def _rocm_smi(outputs: list[str]) -> list[GpuInfo]:
    """``rocm-smi --showproductname --json``: ``{"card0": {"Card Series": ...}, ...}`` (key case varies)."""
    doc = _json(outputs[0]) if outputs else None
    gpus: list[GpuInfo] = []
    if not isinstance(doc, dict):
        return gpus
    for key in sorted(doc, key=lambda k: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", k)]):
        card = doc[key]
        if not key.startswith("card") or not isinstance(card, dict):
            continue
        fields = {str(k).lower(): str(v) for k, v in card.items()}
        name = fields.get("card series") or fields.get("device name") or fields.get("card model") or key
        gpus.append(GpuInfo(name=name))
    return gpus


_ROCM_MASK = (
    "ROCm runtimes take the GPU subset from ROCR_VISIBLE_DEVICES (the only mask applied; no second CUDA/HIP mask)"
)
_ROCM_MOUNTS = "ROCm containers need the KFD and DRI device nodes"
_AMD_EXPORTER: dict[str, Any] = {
    "container_image": "docker://rocm/device-metrics-exporter:v1.5.2",
    "command": "/home/amd/tools/entrypoint.sh",
    "port": 5000,
    "kind": "custom",
    "gpu_labels": {"index": "gpu_id", "identity": "serial_number"},
    "gpu_metrics": {
        "power": {"metric": "gpu_power_usage"},
        "gpu_util": {"metric": "gpu_gfx_activity"},
        "temperature": {"metric": "gpu_junction_temperature"},
    },
}

#: Tried in this order on the compute node; the first that answers with GPUs decides.
GPU_TOOLS: tuple[GpuTool, ...] = (
    GpuTool(
        name="nvidia-smi",
        commands=(("nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"),),
        parse=_nvidia,
        visible_devices_env="CUDA_VISIBLE_DEVICES",
        why_mask="CUDA runtimes take the GPU subset from CUDA_VISIBLE_DEVICES (srtctl's default)",
    ),
    GpuTool(
        name="amd-smi",
        commands=(("amd-smi", "static", "--asic", "--vram", "--driver", "--json"), ("amd-smi", "list", "--json")),
        parse=_amd_smi,
        visible_devices_env="ROCR_VISIBLE_DEVICES",
        device_mounts=("/dev/kfd", "/dev/dri"),
        exporter=_AMD_EXPORTER,
        why_mask=_ROCM_MASK,
        why_mounts=_ROCM_MOUNTS,
    ),
    GpuTool(
        name="rocm-smi",
        commands=(("rocm-smi", "--showproductname", "--json"),),
        parse=_rocm_smi,
        visible_devices_env="ROCR_VISIBLE_DEVICES",
        device_mounts=("/dev/kfd", "/dev/dri"),
        exporter=_AMD_EXPORTER,
        why_mask=_ROCM_MASK,
        why_mounts=_ROCM_MOUNTS,
    ),
)


def tool_named(name: str | None) -> GpuTool | None:
    """The table row of a tool name, or None."""
    return next((tool for tool in GPU_TOOLS if tool.name == name), None)


@dataclass(frozen=True)
class ToolAnswer:
    """What one tool did on the node: found on PATH, exit codes, raw outputs, parsed GPUs."""

    tool: str
    found: bool
    exit_codes: tuple[int, ...] = ()
    outputs: tuple[str, ...] = ()
    gpus: tuple[GpuInfo, ...] = field(default_factory=tuple)
    timed_out: bool = False

    @property
    def answered(self) -> bool:
        """True when the tool ran, exited 0 and reported at least one GPU."""
        return self.found and bool(self.gpus)
