"""srtctl's `profiling:` (nsys, nsys-time, torch): what each worker runs under, and when capture starts.

Workers of a profiled job run under `nsys profile` (nsys types) or with the engine's torch-profiler
directory set (torch); the per-phase step window is started on every worker leader just before the
benchmark, through the engine's `/start_profile` (Dynamo: `/engine/start_profile` on its system port),
by a small trigger step. Artifacts land in `<logs>/profiles/<mode>/`, as srtctl lays them out.
"""

from __future__ import annotations

from typing import Any

from srt_tui.core import placeholders as ph
from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import MODE_KEYS, ProfilingSpec, Role

_ENV_PHASE = {"prefill": "PREFILL", "decode": "DECODE", "agg": "AGG"}


def phase(spec: ProfilingSpec, role: str) -> tuple[int | None, int | None]:
    """(start_step, stop_step) of a role's phase, or (None, None)."""
    p = getattr(spec, MODE_KEYS[role])
    return (p.start_step, p.stop_step) if p is not None else (None, None)


def validate_profiling(spec: ProfilingSpec | None, roles: list[Role], torch_env: str | None) -> list[Problem]:
    """srtctl's rules: phases match the serving mode; nsys-time needs its window; torch needs engine support."""
    if spec is None or spec.type == "none":
        return []
    out: list[Problem] = []
    if spec.type == "torch" and torch_env is None:
        out.append(Problem("profiling.type", "this engine has no torch profiler hook", "use type: nsys"))
    if spec.type == "nsys-time":
        for key in ("delay_secs", "duration_secs"):
            if getattr(spec, key) is None:
                out.append(Problem(f"profiling.{key}", "nsys-time needs a capture window", f"set profiling.{key}"))
        return out
    for role in roles:
        start, stop = phase(spec, role)
        name = MODE_KEYS[role]
        if start is None or stop is None:
            out.append(
                Problem(
                    f"profiling.{name}",
                    f"profiling is on but the {name} workers have no step window",
                    f"set profiling.{name}: {{start_step: 0, stop_step: 50}}",
                )
            )
        elif stop <= start:
            out.append(Problem(f"profiling.{name}.stop_step", "must be after start_step", "raise stop_step"))
    for role in ("prefill", "decode", "agg"):
        if role not in roles and getattr(spec, MODE_KEYS[role]) is not None:
            out.append(
                Problem(
                    f"profiling.{MODE_KEYS[role]}", f"this job has no {MODE_KEYS[role]} workers", "remove the block"
                )
            )
    return out


def worker_prefix(spec: ProfilingSpec | None, output: str, traces: str, trace_fork: bool = False) -> tuple[str, ...]:
    """`nsys profile …` to put in front of a worker's command (empty unless an nsys type).

    `trace_fork`: srtctl adds `--trace-fork-before-exec=true` for per-node workers behind Dynamo (the
    engine runs in a child the Dynamo wrapper forks)."""
    if spec is None or spec.type not in ("nsys", "nsys-time"):
        return ()
    argv = ["nsys", "profile", "-t", traces, "--cuda-graph-trace=node"]
    if spec.type == "nsys-time":
        argv += ["--delay", str(spec.delay_secs), "--duration", str(spec.duration_secs)]
    else:
        argv += ["-c", "cudaProfilerApi", "--capture-range-end", "stop"]
    argv += ["--force-overwrite", "true", *(spec.extra_nsys_args or [])]
    argv += ["--trace-fork-before-exec=true"] if trace_fork else []
    return (*argv, "-o", output)


def worker_env(spec: ProfilingSpec | None, role: Role, torch_env: str | None) -> list[tuple[str, str]]:
    """The profiling variables a worker gets (srtctl's names), its torch directory included."""
    if spec is None or spec.type == "none":
        return []
    env: list[tuple[str, str]] = [("PROFILING_MODE", role), ("PROFILE_TYPE", spec.type)]
    start, stop = phase(spec, role)
    if start is not None:
        env.append((f"PROFILE_{_ENV_PHASE[role]}_START_STEP", str(start)))
    if stop is not None:
        env.append((f"PROFILE_{_ENV_PHASE[role]}_STOP_STEP", str(stop)))
    if spec.type == "torch" and torch_env is not None:
        env.append((torch_env, f"{ph.LOGS}/profiles/{role}"))
    if spec.type == "nsys" and start is not None and stop is not None:
        env += [("TLLM_PROFILE_START_STOP", f"{start}-{stop}"), ("TLLM_LLMAPI_ENABLE_NVTX", "1")]
    return env


def trigger_targets(spec: ProfilingSpec | None, leaders: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """One `/start_profile` call per worker leader: (role, base URL) → the request the trigger sends."""
    if spec is None or spec.type in ("none", "nsys-time"):
        return []
    activities = ["CPU", "GPU"] if spec.type == "torch" else ["CUDA_PROFILER"]
    out = []
    for role, base in leaders:
        start, stop = phase(spec, role)
        if start is None or stop is None:
            continue
        out.append(
            {
                "url": f"{base}/start_profile",
                "output_dir": f"{ph.LOGS}/profiles/{role}",
                "start_step": start,
                "num_steps": stop - start,
                "activities": activities,
            }
        )
    return out
