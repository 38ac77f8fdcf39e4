# Environment fingerprint of one worker step: GPU, driver, runtime and collective library facts from
# whichever vendor tools exist (nvidia-smi/nvcc/NCCL or amd-smi/rocm-smi/hipcc/RCCL); never fatal.
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import time


def run(argv):
    if not shutil.which(argv[0]):
        return None
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except Exception as exc:
        return {"error": str(exc)}
    return {"rc": r.returncode, "out": r.stdout.strip()[:20000], "err": r.stderr.strip()[:2000]}


gpu = {}
for tool, argv in (
    ("nvidia-smi", ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"]),
    ("amd-smi", ["amd-smi", "static", "--asic", "--vram", "--driver", "--json"]),
    ("rocm-smi", ["rocm-smi", "--showproductname", "--showdriverversion", "--showmeminfo", "vram", "--json"]),
):
    res = run(argv)
    if res is not None:
        gpu[tool] = res
answered = [t for t, r in gpu.items() if r.get("rc") == 0]
runtime = {}
for tool, argv in (("nvcc", ["nvcc", "--version"]), ("hipcc", ["hipcc", "--version"])):
    res = run(argv)
    if res is not None:
        runtime[tool] = res
if os.path.exists("/opt/rocm/.info/version"):
    runtime["rocm"] = open("/opt/rocm/.info/version").read().strip()
collective = run(
    [
        sys.executable,
        "-c",
        'import torch; v = torch.cuda.nccl.version(); print(v, torch.version.cuda, getattr(torch.version, "hip", None))',
    ]
)
prefixes = (
    "CUDA_",
    "ROCR_",
    "HIP_",
    "HSA_",
    "NCCL_",
    "RCCL_",
    "SGLANG_",
    "VLLM_",
    "TORCH_",
    "SLURM_JOB_ID",
    "SLURMD_NODENAME",
    "GPU_DEVICE_ORDINAL",
)
secret = ("TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH")
env = {
    k: ("***" if any(s in k for s in secret) else v) for k, v in sorted(os.environ.items()) if k.startswith(prefixes)
}


def _version(names):
    from importlib import metadata

    for name in names:
        try:
            return metadata.version(name)
        except Exception:
            continue
    return None


# the recipe's `identity:` (srtctl's meaning): checked here, on the worker, and reported as warnings
identity = json.loads(os.environ.get("SRT_IDENTITY") or "{}")
frameworks = {}
for name in sorted(set(identity.get("frameworks") or {}) | {"torch", "vllm", "sglang", "tensorrt_llm", "dynamo"}):
    frameworks[name] = _version({"dynamo": ["ai-dynamo", "dynamo"]}.get(name, [name]))
model = {"path": os.environ.get("SRT_MODEL_DIR")}
try:
    with open(os.path.join(model["path"] or "/model", "config.json")) as fh:
        model["name_or_path"] = json.load(fh).get("_name_or_path")
except Exception:
    model["name_or_path"] = None
model["realpath"] = os.path.realpath(model["path"]) if model["path"] else None
mismatches, unverified = [], []
for name, want in (identity.get("frameworks") or {}).items():
    have = frameworks.get(name)
    if have is None:
        unverified.append(f"framework {name}: not installed here")
    elif str(have) != str(want):
        mismatches.append(f"framework {name}: {have} installed, identity says {want}")
want_model = identity.get("model") or {}
if want_model.get("repo"):
    if not model["name_or_path"]:
        unverified.append("model repo: config.json has no _name_or_path")
    elif want_model["repo"] not in model["name_or_path"]:
        mismatches.append(f"model repo: {model['name_or_path']}, identity says {want_model['repo']}")
if want_model.get("revision") and want_model["revision"] not in (model["realpath"] or ""):
    unverified.append("model revision: the model path does not name a revision")
for line in mismatches:
    print(f"srt-tui identity mismatch: {line}", file=sys.stderr)
doc = {
    "hostname": socket.gethostname(),
    "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "arch": platform.machine(),
    "python_version": platform.python_version(),
    "gpu_tool": answered[0] if answered else None,
    "gpu": gpu or None,
    "gpu_note": None
    if answered
    else "no GPU tool answered on this node (nvidia-smi, amd-smi and rocm-smi absent or failing)",
    "runtime": runtime or None,
    "collective": collective,
    "env": env,
    "frameworks": frameworks,
    "model": model,
    "identity": {"expected": identity, "mismatches": mismatches, "unverified": unverified} if identity else None,
}
with open(sys.argv[1], "w") as fh:
    json.dump(doc, fh, indent=2)
