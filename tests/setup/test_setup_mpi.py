"""MPI plugin: Setup proposes one that loads and doctor flags one that does not (op10 defect 1: a Setup-written
profile kept `mpi_plugin: pmix` on a cluster whose pmix does not load, and every Dynamo job's frontend step failed).

The parser runs on real `srun --mpi=list` output of Debian's 22.05 (the local test cluster) and on 25.11's format
as its source prints it (src/common/plugrack.c: `none` first, pmix versions on a line of their own).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from srt_tui.cli.main import main
from srt_tui.core.spec.profile import Profile
from srt_tui.setup.doctor import check_profile
from srt_tui.setup.mpi import parse_mpi_list, probe_mpi
from srt_tui.setup.probes import ProbeRun
from tests.cluster import ClusterInfo

FIXTURES = Path(__file__).resolve().parents[1] / "slurm" / "fixtures"


def test_parse_mpi_list_on_recorded_outputs() -> None:
    listed = parse_mpi_list((FIXTURES / "srun_mpi_list_22.05.txt").read_text())
    assert listed == ("pmix", "none", "cray_shasta", "pmi2", "pmix_v4")
    later = parse_mpi_list((FIXTURES / "srun_mpi_list_25.11_from_source.txt").read_text())
    assert later == ("none", "cray_shasta", "pmi2", "pmix", "pmix_v5")


def test_a_listed_pmix_that_does_not_load_gives_pmi2() -> None:
    said = (FIXTURES / "srun_test_only_mpi_pmix_22.05.txt").read_text()
    assert "Invalid MPI type 'pmix'" in said
    listing = (FIXTURES / "srun_mpi_list_22.05.txt").read_text()
    mpi = probe_mpi(listing, lambda name: "can not load PMIx library" if name.startswith("pmix") else None)
    assert mpi.best == "pmi2"
    assert "pmix" in mpi.refused
    run = ProbeRun(reachable=True, mpi=mpi)
    bad = [f for f in check_profile(Profile(), run) if f.name == "mpi_plugin"]
    assert bad and bad[0].level == "error" and "mpi_plugin: pmi2" in bad[0].fix
    good = [f for f in check_profile(Profile(mpi_plugin="pmi2"), run) if f.name == "mpi_plugin"]
    assert good and good[0].level == "ok"


def test_pmix_that_loads_is_kept() -> None:
    assert probe_mpi("MPI plugin types are...\n\tnone\n\tpmix\n\tpmi2\n", lambda name: None).best == "pmix"


@pytest.mark.slurm
def test_setup_proposes_a_plugin_srun_loads_and_doctor_flags_pmix(
    cluster: ClusterInfo, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["setup", "--probe", "--no-node", "--json", "--name", "mpi"])
    out = capsys.readouterr().out
    assert rc == 0, out
    doc = json.loads(out)
    key = next(k for k in doc["proposal"]["keys"] if k["key"] == "mpi_plugin")
    listed = parse_mpi_list(subprocess.run(["srun", "--mpi=list"], capture_output=True, text=True).stdout)
    assert key["value"] in listed
    loads = subprocess.run(
        ["srun", "--test-only", "-N1", "-t1", f"--mpi={key['value']}", "true"], capture_output=True, text=True
    )
    assert loads.returncode == 0, loads.stderr
    pmix = subprocess.run(["srun", "--test-only", "-N1", "-t1", "--mpi=pmix", "true"], capture_output=True, text=True)
    profile = shared / "pmix.yaml"
    profile.write_text(f"cluster: local\ndefault_partition: {cluster.partition}\nmpi_plugin: pmix\n")
    rc = main(["doctor", "-p", str(profile), "--no-node"])
    said = capsys.readouterr().out
    if pmix.returncode != 0:  # this cluster's pmix does not load (Debian's 22.05): doctor must say so
        assert rc != 0, said
        assert "mpi_plugin" in said and f"mpi_plugin: {key['value']}" in said, said
    else:
        assert "`pmix` loads" in said, said
