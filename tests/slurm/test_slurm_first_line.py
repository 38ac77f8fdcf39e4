"""Why Slurm cannot be used, in one line for a screen that has room for one (the Submit step; operator pass 9: the
demo's Submit step showed scontrol's whole configless-DNS failure, 14 lines, beside the Local launcher)."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.slurm.cli_transport import CliTransport
from srt_tui.slurm.errors import FIRST_LINE_MAX, first_line

CHECK = "check SLURM_CONF unset (so /etc/slurm/slurm.conf or configless) / munge"
PYSLURM = "pyslurm: pyslurm is not installed (pip install 'srt-tui[pyslurm]', Slurm 25.11)"
#: what `get_client` said on a machine with no slurm.conf and no configless DNS record (copied from the operator pass)
DNS = (
    f"no Slurm transport can reach a controller; tried {PYSLURM}; cli: slurmctld not reachable: `scontrol ping` "
    "said: scontrol: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host; scontrol: error: "
    "fetch_config: DNS SRV lookup failed; scontrol: error: _establish_config_source: failed to fetch config; "
    f"scontrol: fatal: Could not establish a configuration source; {CHECK} / that slurmctld runs"
)


@pytest.mark.parametrize(
    ("reason", "line"),
    [
        (DNS, "Could not establish a configuration source"),
        (  # another command's failure, its lines as Slurm wrote them
            f"slurmctld not reachable: {CHECK}. `scontrol show config` said: scontrol: error: "
            "resolve_ctls_from_dns_srv: res_nsearch error: Unknown host\nscontrol: fatal: Could not establish a "
            "configuration source",
            "Could not establish a configuration source",
        ),
        (
            f"no Slurm transport can reach a controller; tried {PYSLURM}; cli: slurmctld not reachable: `scontrol "
            f"ping` said: Slurmctld(primary) at node0 is DOWN; {CHECK} / that slurmctld runs",
            "Slurmctld(primary) at node0 is DOWN",
        ),
        (
            f"no Slurm transport can reach a controller; tried {PYSLURM}; cli: slurmctld not reachable: `scontrol "
            f"ping` did not answer within 5 s; {CHECK} / that slurmctld runs. It said: scontrol: error: timed out",
            "`scontrol ping` did not answer within 5 s",
        ),
        (
            f"no Slurm transport can reach a controller; tried {PYSLURM}; cli: scontrol: Slurm configuration "
            "/x/slurm.conf does not exist: fix SLURM_CONF (the local test cluster writes it to env.sh in its "
            "LOCAL_SLURM_DIR)",
            "scontrol: Slurm configuration /x/slurm.conf does not exist",
        ),
        (  # the same failures in a login node's words (slurm/advice.py): the fix first, then what Slurm said
            "no Slurm transport can reach a controller; tried cli: slurmctld not reachable: Slurm finds no "
            "configuration (SLURM_CONF is not set: Slurm reads /etc/slurm/slurm.conf, else asks DNS for a configless "
            "controller): set SLURM_CONF to this cluster's slurm.conf or load the site's Slurm module (`module load "
            "slurm`). `scontrol ping` said: scontrol: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown "
            "host; scontrol: fatal: Could not establish a configuration source",
            "Could not establish a configuration source",
        ),
        (
            "scontrol: SLURM_CONF=/x/slurm.conf names no file: point SLURM_CONF at this cluster's slurm.conf, unset it "
            "(Slurm then reads /etc/slurm/slurm.conf), or load the site's Slurm module (`module load slurm`)",
            "scontrol: SLURM_CONF=/x/slurm.conf names no file",
        ),
        (
            "scontrol not found: Slurm's commands are not on PATH here; load the site's Slurm module (`module load "
            "slurm`) or add Slurm's bin directory to PATH",
            "scontrol not found: Slurm's commands are not on PATH here",
        ),
        ("slurmctld not reachable", "slurmctld not reachable"),
        ("sinfo: command not found", "sinfo: command not found"),
        (
            "sinfo: error: slurm_load_partitions: Unable to contact slurm controller (connect failure); slurmctld on "
            "head-node-01:6817 did not answer within 10 s",
            "slurm_load_partitions: Unable to contact slurm controller (connect failure)",
        ),
        ("", ""),
    ],
)
def test_first_line_keeps_what_is_wrong_and_drops_the_rest(reason: str, line: str) -> None:
    assert first_line(reason) == line


def test_a_missing_command_and_a_long_line(tmp_path: Path) -> None:
    client = CliTransport(bin_dir=tmp_path)  # no scontrol there: the transport's own words
    assert client.ping() is False and client.last_error is not None
    said = first_line(client.last_error)  # its words, whichever they are, up to srt-tui's fix
    assert said.startswith("scontrol not found") and said in client.last_error and len(said) < len(client.last_error)
    long = "x" * 300
    assert len(first_line(long)) == FIRST_LINE_MAX and first_line(long).endswith("…")
