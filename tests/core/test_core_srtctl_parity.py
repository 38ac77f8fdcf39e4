"""srt-tui launches what srtctl launches (issue 19): every worker, router and nginx of srtctl's library.

`parity/srtctl-launches.json.gz` holds what srtctl c88ef731's own stages launched for each job of
`reference/srtctl-recipes-all` (recorded and normalised by tools/parity; no srtctl code). Each job is planned
here on the same srtslurm.yaml and compared process by process: program and flags (argparse semantics),
environment, unset environment, srun options, container, mounts. A difference is allowed only when the
process declares it (plan.json `differs_from_srtctl`, core/plan/deviations.py, the README's table).
"""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.errors import SrtError
from srt_tui.core.plan.deviations import DEVIATIONS
from tests.core.core_helpers import REPO, need
from tests.core.test_core_srtctl_recipes import REFERENCE
from tools.parity.compare import DOCUMENTED, Tally, plan_document, sbatch_differences, tui_processes

CORPUS = Path(__file__).parent / "parity" / "srtctl-launches.json.gz"


@pytest.fixture(scope="module")
def tally(tmp_path_factory: pytest.TempPathFactory) -> Tally:
    need(REFERENCE.is_dir(), f"srtctl reference recipes not found at {REFERENCE}")
    with gzip.open(CORPUS, "rt") as f:
        jobs: list[dict[str, Any]] = json.load(f)
    result = Tally()
    root = tmp_path_factory.mktemp("parity")
    warnings.simplefilter("ignore")
    for i, job in enumerate(jobs):
        tmp = root / str(i)
        (tmp / "model").mkdir(parents=True)
        (tmp / "c.sqsh").write_text("")
        (tmp / "srtslurm.yaml").write_text(job["srtslurm"].replace("{tmp}", str(tmp)))
        for d in job.get("dirs", []):  # what srtctl's checkout held (its staged wheelhouse, configs/)
            (tmp / d).mkdir(parents=True)
        try:
            plan = plan_document(prepare(f"{REFERENCE}/{job['spec']}", str(tmp / "srtslurm.yaml"), None))
        except SrtError:
            result.jobs["srt-tui refuses"] += 1
            continue
        sbatch = sbatch_differences(job["sbatch"], plan) if "sbatch" in job else None
        result.add_job(job["spec"], tuple(job["kinds"]), job["processes"], tui_processes(plan, str(tmp)), sbatch)
    return result


def test_every_process_launches_as_srtctl_launches_it_or_declares_why(tally: Tally) -> None:
    print("\n" + tally.report())
    compared, documented = sum(tally.compared.values()), sum(tally.documented.values())
    assert compared >= 6800, f"only {compared} processes compared"
    assert documented >= 0.99 * compared, tally.report()
    assert not tally.undocumented, "launch differences from srtctl nobody declared:\n" + "\n".join(tally.undocumented)


def test_every_kind_is_compared(tally: Tally) -> None:
    kinds = {"nginx", "router:dynamo", "router:sglang", "sbatch", "worker:sglang", "worker:trtllm", "worker:vllm"}
    assert kinds <= set(tally.compared)


def test_each_deviation_is_in_the_readme_table_and_the_harness() -> None:
    readme = (REPO / "README.md").read_text()
    table = readme[readme.index("### Where srt-tui launches differently from srtctl, and why") :]
    for key, deviation in DEVIATIONS.items():
        assert f"`{key}`" in table, f"README's table lacks {key}"
        assert key in DOCUMENTED, f"tools/parity does not know which differences {key} explains"
        assert deviation.what and deviation.why
