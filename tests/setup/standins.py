"""Stand-in GPU tools for the probe job: executables printing the real tools' output formats (no GPUs here)."""

from __future__ import annotations

import json
from pathlib import Path

NVIDIA_CSV = "\n".join(["NVIDIA H100 80GB HBM3, 550.54.15, 81559 MiB"] * 8) + "\n"

AMD_STATIC = {
    "gpu_data": [
        {
            "gpu": i,
            "asic": {
                "market_name": "AMD Instinct MI300X",
                "vendor_id": "0x1002",
                "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                "device_id": "0x74a1",
                "rev_id": "0x00",
                "num_compute_units": 304,
                "target_graphics_version": "gfx942",
            },
            "vram": {"type": "HBM", "vendor": "SAMSUNG", "size": {"value": 196592, "unit": "MB"}, "bit_width": 8192},
            "driver": {"name": "amdgpu", "version": "6.8.5"},
        }
        for i in range(8)
    ]
}
AMD_LIST = [
    {"gpu": i, "bdf": f"0000:{0x0C + i * 0x10:02x}:00.0", "uuid": f"uuid-{i}", "kfd_id": 1000 + i} for i in range(8)
]
ROCM_SMI = {
    f"card{i}": {
        "Card Series": "AMD Instinct MI300X",
        "Card Model": "0x74a1",
        "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",
        "Card SKU": "M3000100",
        "GFX Version": "gfx942",
    }
    for i in range(8)
}


def _tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)


def _cat(text: str) -> str:
    return "cat <<'SRT_EOF'\n" + text.rstrip("\n") + "\nSRT_EOF\n"


def nvidia_tools(folder: Path) -> Path:
    """``nvidia-smi`` answering the fingerprint query with 8 H100s."""
    folder.mkdir(parents=True, exist_ok=True)
    _tool(folder, "nvidia-smi", 'case "$*" in *--query-gpu*) ' + _cat(NVIDIA_CSV) + ";; *) exit 6;; esac\n")
    return folder


def amd_tools(folder: Path) -> Path:
    """``amd-smi`` (static + list JSON) and ``rocm-smi`` (product-name JSON) answering with 8 MI300X."""
    folder.mkdir(parents=True, exist_ok=True)
    static = _cat(json.dumps(AMD_STATIC, indent=4))
    listing = _cat(json.dumps(AMD_LIST, indent=4))
    _tool(folder, "amd-smi", f'case "$1" in static) {static};; list) {listing};; *) exit 2;; esac\n')
    _tool(folder, "rocm-smi", _cat(json.dumps(ROCM_SMI, indent=4)))
    return folder


def slow_tool(folder: Path, name: str = "nvidia-smi", seconds: int = 30) -> Path:
    """A tool that hangs (the probe's per-tool timeout must catch it)."""
    folder.mkdir(parents=True, exist_ok=True)
    _tool(folder, name, f"sleep {seconds}\n")
    return folder


def rejecting_sbatch(folder: Path, real_sbatch: str) -> Path:
    """An ``sbatch`` that refuses --gpus-per-node like a GRES-only cluster, else runs the real one."""
    folder.mkdir(parents=True, exist_ok=True)
    body = (
        'for a in "$@"; do case "$a" in --gpus-per-node*) '
        'echo "sbatch: error: Invalid generic resource (gres) specification" >&2; exit 1;; esac; done\n'
        f'exec {real_sbatch} "$@"\n'
    )
    _tool(folder, "sbatch", body)
    return folder
