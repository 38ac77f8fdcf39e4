"""Normalise srtctl schema 1 recipes (`backend:` + `resources.*_nodes/_workers`) to schema 2 data."""

from __future__ import annotations

from typing import Any

from srt_tui.core.errors import config_error
from srt_tui.core.spec.yamlio import Located

#: srtctl v1's `sglang` is the SGLang router whatever the topology; `vllm`/`trtllm_serve` mean the same in both
_V1_FRONTENDS = {"sglang": "sglang-router"}
_MODES = {"prefill": "prefill", "decode": "decode", "aggregated": "agg"}
_ENGINE_KEYS = {"connector", "mooncake_protocol", "kv_events_config", "mooncake_kv_store"}


def _role_from_resources(res: dict[str, Any], short: str) -> dict[str, Any] | None:
    nodes, workers, gpus = (
        res.pop(f"{short}_nodes", None),
        res.pop(f"{short}_workers", None),
        res.pop(f"gpus_per_{short}", None),
    )
    if nodes is None and workers is None:
        return None
    role: dict[str, Any] = {"workers": 1 if workers is None else workers}
    if nodes is not None:
        role["nodes"] = nodes
    if gpus is not None:
        role["gpus"] = gpus
    return role


def normalise_schema1(data: dict[str, Any], src: Located, prefix: tuple[str, ...] = ()) -> dict[str, Any]:
    """Map schema 1 keys onto the schema 2 model; unknown keys are left for the validator to report."""
    out = {k: v for k, v in data.items() if k not in {"backend", "resources", "frontend", "schema"}}
    res = dict(data.get("resources") or {})
    backend = dict(data.get("backend") or {})
    engine_type = backend.pop("type", "sglang")
    roles: dict[str, dict[str, Any]] = {}
    for short, role in (("prefill", "prefill"), ("decode", "decode"), ("agg", "agg")):
        spec = _role_from_resources(res, short)
        if spec is not None:
            roles[role] = spec
    decode = roles.get("decode")
    if decode is not None and decode.get("nodes") == 0 and decode.get("workers", 0) > 0:
        decode["nodes"] = "colocate"
    if "prefill" in roles and roles["prefill"].get("workers") == 0 and "decode" not in roles:
        roles.pop("prefill")
    if res.pop("het_jobs", None):
        raise config_error(
            "heterogeneous Slurm jobs (het_jobs) are not supported by srt-tui",
            file=src.file,
            line=src.line_of((*prefix, "resources", "het_jobs")),
            hint="remove resources.het_jobs: both roles then share one allocation, srtctl's default",
        )
    res.setdefault("gpus_per_node", 4)  # srtctl v1 default
    out["resources"] = res

    engine: dict[str, Any] = {"type": engine_type}
    set_vis = backend.pop("set_visible_devices", backend.pop("set_cuda_visible_devices", None))
    if set_vis is not None:
        engine["set_visible_devices"] = set_vis
    for key in list(backend):
        if key in _ENGINE_KEYS:
            engine[key] = backend.pop(key)
    config_key = f"{engine_type}_config" if isinstance(engine_type, str) else "config"
    per_mode = backend.pop(config_key, None) or {}
    if not isinstance(per_mode, dict):
        raise config_error(
            f"backend.{config_key} must be a mapping",
            file=src.file,
            line=src.line_of((*prefix, "backend", config_key)),
        )
    for mode, role in _MODES.items():
        env = backend.pop(f"{mode}_environment", None)
        args = per_mode.pop(mode, None)
        if role not in roles:
            continue
        if env:
            roles[role]["env"] = env
        if args:
            roles[role]["args"] = args
    extras = {k: v for k, v in backend.items()}
    if per_mode:
        extras[config_key] = per_mode
    if extras:
        engine["config"] = extras
    out["engine"] = engine
    out["roles"] = roles

    frontend = dict(data.get("frontend") or {"type": "dynamo"})
    ftype = frontend.get("type", "dynamo")
    frontend["type"] = _V1_FRONTENDS.get(ftype, ftype)
    out["frontend"] = frontend
    return out
