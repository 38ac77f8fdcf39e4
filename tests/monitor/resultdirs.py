"""Job directories with benchmark results, built in the test: job.json (a sweep's group when asked) and
srtctl's sa-bench per-concurrency files (the format tests/core/test_core_results.py builds)."""

from __future__ import annotations

import json
from pathlib import Path

from srt_tui.core.jobdir.contract import JOB_FILE, JobMeta, SweptValue
from tests.core.test_core_results import srtctl_level

CONCURRENCIES = (4, 16, 64)


def write_results(
    job_dir: Path, gpus: int, slope: float, scale: float = 1.0, concurrencies: tuple[int, ...] | None = None
) -> None:
    """Three levels (or ``concurrencies``) whose TPOT grows with concurrency by ``slope`` ms per user (tok/s/user
    falls as the job's throughput rises, as a real server's does); ``scale`` shifts every throughput."""
    run = job_dir / "logs" / "sa-bench_isl_1024_osl_256"
    run.mkdir(parents=True, exist_ok=True)
    for c in concurrencies or CONCURRENCIES:
        tpot = 8.0 + slope * c
        level = srtctl_level(c, 10 * c, [""] * (10 * c), duration=60.0)
        level.update(
            output_throughput=scale * c * 1000.0 / tpot,
            request_throughput=scale * c * 1000.0 / tpot / 256,
            median_tpot_ms=tpot,
            p99_tpot_ms=tpot * 1.3,
            mean_tpot_ms=tpot * 1.05,
            median_ttft_ms=90.0 + 0.12 * c * c,
            p99_ttft_ms=140.0 + 0.2 * c * c,
            median_itl_ms=tpot,
            p99_itl_ms=tpot * 1.6,
            median_e2el_ms=90.0 + 0.12 * c * c + 255 * tpot,
            p99_e2el_ms=140.0 + 0.2 * c * c + 255 * tpot * 1.3,
        )
        (run / f"results_concurrency_{c}_gpus_{gpus}.json").write_text(json.dumps(level), encoding="utf-8")


def job_dir(
    base: Path,
    job_id: str,
    name: str,
    *,
    group: str | None = None,
    member: str | None = None,
    values: dict[str, SweptValue] | None = None,
) -> Path:
    """A job directory with its job.json (``group``/``group_member``/``group_values`` for a sweep's member)."""
    path = base / job_id
    path.mkdir(parents=True, exist_ok=True)
    meta = JobMeta(job_id, name=name, profile="nvidia-h100", group=group, group_member=member, group_values=values)
    (path / JOB_FILE).write_text(json.dumps(meta.to_json()), encoding="utf-8")
    return path


def single(base: Path) -> Path:
    """One job with three concurrency levels."""
    path = job_dir(base, "81234", "h100-2p1d-sglang")
    write_results(path, gpus=16, slope=0.5)
    return path


def sweep(base: Path) -> list[tuple[str, Path]]:
    """A 3-member sweep (job id, directory): members differ in GPUs and in how fast TPOT grows."""
    out = []
    for i, (gpus, slope, scale) in enumerate(((8, 0.9, 1.0), (16, 0.45, 1.3), (24, 0.3, 1.1))):
        job_id = str(81300 + i)
        path = job_dir(base, job_id, f"h100-sweep-{i}", group="sweep-81300", member=f"sweep[{i}]")
        write_results(path, gpus=gpus, slope=slope, scale=scale)
        out.append((job_id, path))
    return out


#: an osl sweep's values in member order (listed unsorted, as a recipe may), each member at concurrency 64
OSLS = (1024, 128, 512)


def osl_sweep(base: Path) -> list[tuple[str, Path]]:
    """A 3-member sweep of osl (job id, directory), every member at one concurrency (64): TPOT grows with osl."""
    out = []
    for i, osl in enumerate(OSLS):
        job_id = str(81500 + i)
        path = job_dir(base, job_id, f"h100-osl_osl{osl}", group="osl-81500", member=f"sweep[{i}]", values={"osl": osl})
        write_results(path, gpus=16, slope=0.1 + osl / 4096, concurrencies=(64,))
        out.append((job_id, path))
    return out
