"""The pyslurm transport against a stand-in module with pyslurm 25.11's documented call surface.

pyslurm cannot be built against Debian's Slurm 22.05 (it requires 25.11), so this is the one place a
stand-in is used: a module injected as ``sys.modules["pyslurm"]`` exposing ``JobSubmitDescription``,
``Jobs.load``, ``Job``, ``Nodes.load``, ``Partitions.load``, ``slurmctld.ping_primary`` and ``RPCError``.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from srt_tui.slurm.client import JobState, SlurmClient
from srt_tui.slurm.errors import SlurmError, SlurmUnavailable
from srt_tui.slurm.pyslurm_transport import PyslurmTransport
from srt_tui.slurm.select import get_client


class StandIn:
    """State shared by the stand-in module's classes (what was submitted, cancelled, ...)."""

    def __init__(self) -> None:
        self.submitted: list[dict[str, Any]] = []
        self.sbatch_options_loaded = False
        self.cancelled: list[int] = []
        self.released: list[int] = []
        self.reject: str | None = None
        self.unreachable = False
        self.job_loads: list[int] = []  # Job.load(id) calls: one small RPC each
        self.cluster_loads = 0  # Jobs.load() calls: every job of the cluster


def make_pyslurm(state: StandIn) -> types.ModuleType:
    """A module with pyslurm's documented names, backed by ``state``."""
    mod = types.ModuleType("pyslurm")

    class RPCError(Exception):
        """pyslurm.RPCError."""

    def check() -> None:
        if state.unreachable:
            raise RPCError("Unable to contact slurm controller (connect failure)")

    class JobSubmitDescription:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

        def load_sbatch_options(self, overwrite: bool = False) -> None:
            assert Path(self.kwargs["script"]).is_file()  # pyslurm insists on a script path
            state.sbatch_options_loaded = True

        def submit(self) -> int:
            check()
            if state.reject:
                raise RPCError(state.reject)
            state.submitted.append(self.kwargs)
            return 4242

    class Job:
        def __init__(self, job_id: int, **attrs: Any) -> None:
            self.id = job_id
            for key, value in attrs.items():
                setattr(self, key, value)

        def cancel(self) -> None:
            check()
            state.cancelled.append(self.id)

        def release(self) -> None:
            check()
            state.released.append(self.id)

        @staticmethod
        def load(job_id: int) -> Job:
            check()
            state.job_loads.append(job_id)
            records = Jobs.records()
            if job_id not in records:
                raise RPCError("Invalid job id specified")
            job: Job = records[job_id]
            return job

    class Jobs(dict):  # type: ignore[type-arg]
        @staticmethod
        def load(preload_passwd_info: bool = False, frozen: bool = False) -> Jobs:
            check()
            state.cluster_loads += 1
            return Jobs.records()

        @staticmethod
        def records() -> Jobs:
            jobs = Jobs()
            jobs[7] = Job(
                7,
                name="srt-disagg",
                state="RUNNING",
                state_reason="None",
                allocated_nodes="node[1-3]",
                num_nodes=3,
                exit_code=0,
                exit_code_signal=0,
                submit_time=1700000000,
                start_time=1700000005,
                end_time=1731536005,  # Slurm's "start + 1 year" for an unlimited running job
                time_limit=None,
                partition="gpu",
                working_directory="/w/7",
                user_name="ann",
                standard_output="/o/%j/logs/sweep_%j.log",
            )
            jobs[8] = Job(
                8,
                name="failer",
                state="FAILED",
                state_reason="NonZeroExitCode",
                allocated_nodes="node1",
                num_nodes=1,
                exit_code=3,
                exit_code_signal=0,
                submit_time=1700000010,
                start_time=1700000011,
                end_time=1700000012,
                time_limit=30,
                partition="gpu",
                working_directory="/w/8",
                user_name="bob",
            )
            jobs[9] = Job(
                9,
                name="waiting",
                state="PENDING",
                state_reason="Resources",
                allocated_nodes=None,
                num_nodes=1,
                exit_code=0,
                exit_code_signal=0,
                submit_time=1700000020,
                start_time=1700099999,  # an estimate, not a start
                end_time=None,
                time_limit=60,
                partition="gpu",
                working_directory="/w/9",
            )
            return jobs

    class Node:
        def __init__(self, name: str, address: str) -> None:
            self.name = name
            self.state = "IDLE"
            self.total_cpus = 224
            self.real_memory = 2000000
            self.configured_gres = {"gpu:h100": 8}
            self.partitions = ["batch"]
            self.address = address

    class Nodes(dict):  # type: ignore[type-arg]
        @staticmethod
        def load() -> Nodes:
            check()
            nodes = Nodes()
            for i in (1, 2):
                nodes[f"gpu-0{i}"] = Node(f"gpu-0{i}", f"10.0.0.{i}")
            return nodes

    class Partition:
        name = "batch"
        state = "UP"
        nodes = "gpu-[01-02]"
        total_nodes = 2
        total_cpus = 448
        is_default = True
        max_time = 2880  # pyslurm 25.11: minutes, or "UNLIMITED"

    class Partitions(dict):  # type: ignore[type-arg]
        @staticmethod
        def load() -> Partitions:
            check()
            return Partitions(batch=Partition())

    class PingResponse:
        is_responding = True

    slurmctld = types.ModuleType("pyslurm.slurmctld")

    def ping_primary() -> PingResponse:
        check()
        return PingResponse()

    slurmctld.ping_primary = ping_primary  # type: ignore[attr-defined]
    for name, value in {
        "RPCError": RPCError,
        "JobSubmitDescription": JobSubmitDescription,
        "Job": Job,
        "Jobs": Jobs,
        "Nodes": Nodes,
        "Partitions": Partitions,
        "slurmctld": slurmctld,
    }.items():
        setattr(mod, name, value)
    return mod


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> StandIn:
    """Inject the stand-in as ``pyslurm`` for the duration of a test."""
    state = StandIn()
    module = make_pyslurm(state)
    monkeypatch.setitem(sys.modules, "pyslurm", module)
    monkeypatch.setitem(sys.modules, "pyslurm.slurmctld", module.slurmctld)
    return state


def test_declares_its_capabilities(stand_in: StandIn) -> None:
    client = PyslurmTransport()
    assert isinstance(client, SlurmClient)
    assert (client.name, client.supports_json, client.in_process) == ("pyslurm", False, True)


def test_submit_passes_script_path_workdir_and_environment(
    stand_in: StandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLURM_JWT", "secret")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    script = tmp_path / "sbatch.sh"
    script.write_text("#!/bin/bash\n#SBATCH --nodes=2\nsrun true\n")
    job_id = PyslurmTransport().submit(script, tmp_path, {"SRT_JOB_DIR": str(tmp_path)})
    assert job_id == "4242"
    (desc,) = stand_in.submitted
    assert desc["script"] == str(script) and desc["working_directory"] == str(tmp_path)
    assert desc["environment"]["SRT_JOB_DIR"] == str(tmp_path)
    assert desc["environment"]["PATH"] == "/usr/bin:/bin"  # the job inherits the submitter's env
    assert "SLURM_JWT" not in desc["environment"]
    assert desc["nodes"] == "2"  # srt-tui read its own directive: pyslurm's load_sbatch_options is not used
    assert not stand_in.sbatch_options_loaded


def test_held_submission_and_release(stand_in: StandIn, tmp_path: Path) -> None:
    script = tmp_path / "sbatch.sh"
    script.write_text("#!/bin/bash\ntrue\n")
    client = PyslurmTransport()
    client.submit(script, tmp_path, None, hold=True, output=str(tmp_path / "%j" / "slurm.log"))
    (desc,) = stand_in.submitted
    assert desc["priority"] == 0 and desc["standard_output"] == str(tmp_path / "%j" / "slurm.log")
    client.release("4242")
    assert stand_in.released == [4242]


def test_submit_rejection_keeps_slurms_message(stand_in: StandIn, tmp_path: Path) -> None:
    stand_in.reject = "Requested node configuration is not available"
    script = tmp_path / "s.sh"
    script.write_text("#!/bin/bash\n")
    with pytest.raises(SlurmError) as err:
        PyslurmTransport().submit(script, tmp_path, None)
    assert str(err.value) == "Requested node configuration is not available"
    assert not isinstance(err.value, SlurmUnavailable)


def test_query_loads_only_the_tracked_jobs_and_normalises(stand_in: StandIn) -> None:
    jobs = PyslurmTransport().query(["7", "8", "9", "12345"])
    assert stand_in.job_loads == [7, 8, 9, 12345] and stand_in.cluster_loads == 0  # never the whole cluster
    assert jobs["7"] == JobState(
        job_id="7",
        name="srt-disagg",
        state="RUNNING",
        nodes=("node1", "node2", "node3"),
        node_count=3,
        submit_time=1700000000,
        start_time=1700000005,
        partition="gpu",
        work_dir="/w/7",
    )
    assert (jobs["8"].state, jobs["8"].exit_code, jobs["8"].reason, jobs["8"].time_limit) == (
        "FAILED",
        3,
        "NonZeroExitCode",
        30,
    )
    assert (jobs["9"].start_time, jobs["9"].nodes, jobs["9"].reason) == (None, (), "Resources")
    assert jobs["12345"] == JobState.unknown("12345")
    assert PyslurmTransport().query([]) == {}


def test_cancel(stand_in: StandIn) -> None:
    PyslurmTransport().cancel("8")
    assert stand_in.cancelled == [8]
    with pytest.raises(SlurmError):
        PyslurmTransport().cancel("8; rm -rf /")


def test_nodes_and_partitions(stand_in: StandIn) -> None:
    nodes = PyslurmTransport().nodes()
    assert [(n.name, n.gpus, n.gpu_type, n.cpus, n.memory_mb, n.address) for n in nodes] == [
        ("gpu-01", 8, "h100", 224, 2000000, "10.0.0.1"),
        ("gpu-02", 8, "h100", 224, 2000000, "10.0.0.2"),
    ]
    assert nodes[0].gres == "gpu:h100:8" and nodes[0].partitions == ("batch",)
    (part,) = PyslurmTransport().partitions()
    assert (part.name, part.nodes, part.is_default, part.max_time) == ("batch", ("gpu-01", "gpu-02"), True, 2880)


def test_unreachable_controller(stand_in: StandIn) -> None:
    stand_in.unreachable = True
    client = PyslurmTransport()
    assert client.ping() is False
    assert client.last_error and "slurmctld not reachable" in client.last_error
    with pytest.raises(SlurmUnavailable, match="Unable to contact slurm controller"):
        client.query(["1"])


def test_auto_selects_pyslurm_when_it_reaches_the_controller(stand_in: StandIn) -> None:
    assert get_client("auto").name == "pyslurm"
    assert get_client("pyslurm").name == "pyslurm"


def test_forced_pyslurm_without_pyslurm_names_the_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyslurm", None)  # `import pyslurm` raises ImportError
    with pytest.raises(SlurmUnavailable, match=r"pyslurm: `import pyslurm` failed"):
        get_client("pyslurm")


def test_unknown_transport_name() -> None:
    with pytest.raises(ValueError, match="unknown Slurm transport"):
        get_client("rest")


def test_user_jobs_one_load_kept_to_the_user() -> None:
    """The all-jobs view: one `Jobs.load()`, only this user's jobs, stdout patterns filled in as sbatch does."""
    state = StandIn()
    client = PyslurmTransport(make_pyslurm(state))
    jobs = client.user_jobs("ann")
    assert [j.job_id for j in jobs] == ["7"] and state.cluster_loads == 1
    assert (jobs[0].user, jobs[0].stdout, jobs[0].work_dir) == ("ann", "/o/7/logs/sweep_7.log", "/w/7")
