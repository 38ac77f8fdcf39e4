"""srt-tui launches what srtctl launches: record srtctl's launches, plan the same jobs, compare (see README.md).

    python tools/parity/run.py --srtctl-python VENV/bin/python [--reference DIR] [--only SUBSTR] [--every N]
                               [--variant minimal|cluster] [--show]
                               [--write-corpus tests/core/parity/srtctl-launches.json.gz]

Runs srtctl's own stages (record_srtctl.py, in srtctl's venv) over every job of the reference library, plans
each job with srt-tui on the very srtslurm.yaml srtctl read, and prints matched / compared per process kind
and the differences by category. `--write-corpus` stores srtctl's normalised launches (no srtctl code) for
tests/core/test_core_srtctl_parity.py, which compares against them without srtctl installed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from srt_tui.core.api import prepare  # noqa: E402
from srt_tui.core.errors import SrtError  # noqa: E402
from srt_tui.core.spec.recipe import list_variants  # noqa: E402
from tools.parity.compare import (  # noqa: E402
    Tally,
    _documented,
    differences,
    plan_document,
    sbatch_differences,
    srtctl_processes,
    tui_processes,
)

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_REFERENCE = Path(os.environ.get("SRT_SHARED_DIR") or REPO / ".." / "shared") / "reference/srtctl-recipes-all"


def job_specs(reference: Path) -> list[str]:
    """What `srtctl apply -f FILE` submits for every file: each variant but `base` (base alone if it has none)."""
    out: list[str] = []
    for path in sorted(reference.rglob("*.yaml")):
        if "configs" in path.relative_to(reference).parts:
            continue
        try:
            variants = list_variants(path)
        except SrtError:
            continue
        jobs = [v for v in variants if v != "base"] or variants
        out += [f"{path}:{v}" for v in jobs] or [str(path)]
    return out


def plan_of(spec: str, profile: str) -> dict[str, Any]:
    """srt-tui's plan.json for one job (what `srt-tui dry-run --json -f SPEC -p PROFILE` prints)."""
    try:
        return plan_document(prepare(spec, profile, None))
    except SrtError as exc:
        return {"error": str(exc)}


def show(spec: str, theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    """Both sides of each process of one job that differs from srtctl in a way it does not declare."""
    for key in sorted(set(theirs) | set(ours)):
        a, (b, declared) = theirs.get(key), ours.get(key, (None, []))
        diffs = ["process only on one side"] if a is None or b is None else differences(a, b)
        diffs = [d for d in diffs if not _documented(d, declared)]
        if diffs:
            print(f"== {spec} :: {key}: {'; '.join(diffs)}")
            print(f"   srtctl: {json.dumps(a, sort_keys=True)}\n   srt-tui: {json.dumps(b, sort_keys=True)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--srtctl-python", required=True, help="python of a venv with srtctl c88ef731 installed")
    ap.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    ap.add_argument("--only", default="", help="only jobs whose spec contains this")
    ap.add_argument("--every", type=int, default=1, help="only every Nth job (a sample across the library)")
    ap.add_argument(
        "--variant",
        choices=("minimal", "cluster"),
        default="minimal",
        help="the srtslurm.yaml srtctl reads: aliases alone, or every launch-changing key (record_srtctl.CLUSTER)",
    )
    ap.add_argument("--write-corpus", type=Path, help="store srtctl's normalised launches here (.json.gz)")
    ap.add_argument("--show", action="store_true", help="print both sides of each undeclared difference")
    args = ap.parse_args()
    reference = args.reference.resolve()
    if not reference.is_dir():
        ap.error(f"no srtctl recipe library at {reference} (--reference)")
    specs = [s for s in job_specs(reference) if args.only in s][:: args.every]
    with tempfile.TemporaryDirectory(prefix="parity-") as work:
        (Path(work) / "specs.json").write_text(json.dumps(specs))
        recorded = Path(work) / "srtctl.jsonl"
        subprocess.run(
            [args.srtctl_python, str(HERE / "record_srtctl.py"), f"{work}/specs.json", str(recorded), work]
            + [args.variant],
            check=True,
        )
        records = [json.loads(line) for line in recorded.read_text().splitlines()]
        tally, corpus = Tally(), []
        infra = [0, 0]
        warnings.simplefilter("ignore")
        for rec in records:
            spec = rec["spec"].replace(f"{reference}/", "")
            if "error" in rec:
                tally.jobs["srtctl refuses"] += 1
                continue
            plan = plan_of(rec["spec"], f"{rec['tmp']}/srtslurm.yaml")
            theirs = srtctl_processes(rec)
            corpus.append(
                {
                    "spec": spec,
                    "kinds": [rec["backend"], rec["frontend"]],
                    "srtslurm": (Path(rec["tmp"]) / "srtslurm.yaml").read_text().replace(rec["tmp"], "{tmp}"),
                    "infra": any(p["stage"] == "infra" for p in rec["processes"]),
                    "dirs": rec.get("dirs", []),
                    "variant": args.variant,
                    "processes": theirs,
                    "sbatch": rec["sbatch"],
                }
            )
            if "error" in plan:
                tally.jobs["srt-tui refuses"] += 1
                continue
            infra[0] += corpus[-1]["infra"]
            infra[1] += corpus[-1]["infra"] and bool(plan["infra"])
            ours = tui_processes(plan, rec["tmp"])
            sbatch = sbatch_differences(rec["sbatch"], plan)
            tally.add_job(spec, (rec["backend"], rec["frontend"]), theirs, ours, sbatch)
            if args.show:
                show(spec, theirs, ours)
    print(tally.report())
    print(f"NATS/etcd: srtctl starts them in {infra[0]} jobs, srt-tui in {infra[1]} of those (as two steps)")
    if args.write_corpus:  # this variant's jobs replace its earlier ones; another variant's stay
        if args.write_corpus.exists():
            with gzip.open(args.write_corpus, "rt") as f:
                kept = [j for j in json.load(f) if j.get("variant", "minimal") != args.variant]
            corpus = kept + corpus
        with gzip.open(args.write_corpus, "wt") as f:
            json.dump(corpus, f, sort_keys=True, separators=(",", ":"))
        print(f"wrote {len(corpus)} jobs to {args.write_corpus}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
