"""Jobs that really run: `srt-tui apply` on the real local Slurm (3 nodes, netns, eth0 each), mocker
workers, the real sglang-router / vllm-router, observed through `srt-tui status` / `wait`."""

from __future__ import annotations

import ipaddress
import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import SRT, apply, events, job_pids, send_requests, srt, status, wait_no_pids, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
MOCKER = REPO / "recipes" / "mocker"


def _counters(url: str) -> dict[str, float]:
    """The mock worker's own request counters (ok requests per path)."""
    stats: dict[str, float] = httpx.get(url + "/mock/stats", timeout=5).json()
    return stats


def _column(table: str, names: tuple[str, ...]) -> list[str]:
    """The first row's cells under the named columns of a fixed-width `status` table."""
    header, row = table.splitlines()[:2]
    starts = [i for i, c in enumerate(header) if c != " " and (i == 0 or header[i - 2 : i] == "  ")]
    cells = {}
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(row)
        cells[header[start:end].strip()] = row[start:end].strip()
    return [cells[n] for n in names]


def _node_addr(cluster: Any, hostname: str) -> str:
    return next(str(n.address) for n in cluster.nodes if n.name == hostname)


@pytest.mark.parametrize(
    ("recipe", "topology", "expected"),
    [
        ("mocker-2p1d.yaml", "1P1D", {"prefill": 1, "decode": 1}),
        ("mocker-2p1d.yaml", "2P1D", {"prefill": 2, "decode": 1}),
        ("mocker-1p2d.yaml", "1P2D", {"prefill": 1, "decode": 2}),
        ("mocker-agg2.yaml", "agg2", {"agg": 2}),
        ("mocker-2p1d-vllm-router.yaml", "2P1D", {"prefill": 2, "decode": 1}),
    ],
)
def test_topologies_serve_through_the_real_router(
    cluster: Any, jobs: list[str], recipe: str, topology: str, expected: dict[str, int]
) -> None:
    job_id, job_dir = apply(str(MOCKER / recipe), "-p", "local", "-t", topology, "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    snap = status(job_id)
    assert snap["slurm_state"] == "RUNNING"
    assert snap["router"]["registered"] == expected
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    answered = send_requests(endpoints["router"]["url"], 40)
    assert len(answered) == 40
    workers = {w["name"]: w for w in endpoints["workers"]}
    if "agg" in expected:
        assert set(answered) == {"agg_0", "agg_1"}
    else:
        assert set(answered) <= {n for n in workers if n.startswith("decode")}
    if topology == "1P2D":  # both decode workers served some, from their own counters
        for name in ("decode_0", "decode_1"):
            served = _counters(workers[name]["url"])
            assert served["ok"] > 0, f"{name} served nothing: {served}"


@pytest.mark.parametrize(
    ("profile", "mask_var", "other_vars"),
    [
        ("local-rocr", "ROCR_VISIBLE_DEVICES", ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")),
        ("local", "CUDA_VISIBLE_DEVICES", ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")),
    ],
)
def test_masks_and_addresses_follow_the_profile(
    cluster: Any, jobs: list[str], profile: str, mask_var: str, other_vars: tuple[str, ...]
) -> None:
    """Subset workers see exactly their mask in the profile's variable (overriding Slurm's whole-allocation
    value); the script sets no other visibility variable; every URL is the node's own eth0 address."""
    job_id, job_dir = apply(str(MOCKER / "mocker-2p1d.yaml"), "-p", profile, "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    script = (job_dir / "sbatch.sh").read_text()
    if profile == "local-rocr":  # the GRES escape hatch, as on AMD clusters
        assert "#SBATCH --gres=gpu:8" in script and "--gpus-per-node" not in script
    else:
        assert "#SBATCH --gpus-per-node=8" in script and "--gres" not in script
    for var in other_vars:
        assert f"{var}=" not in script
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    node_ip = {n["hostname"]: n["ip"] for n in endpoints["nodes"]}
    for n in endpoints["nodes"]:
        assert n["ip"] == _node_addr(cluster, n["hostname"])  # eth0 of that very node
        subnet = ipaddress.ip_network(f"{cluster.nodes[0].address}/24", strict=False)  # the running cluster's own
        assert ipaddress.ip_address(n["ip"]) in subnet
    assert len(set(node_ip.values())) == 2
    by_node = {n["index"]: n["ip"] for n in endpoints["nodes"]}
    for w in endpoints["workers"]:
        assert w["url"].startswith(f"http://{by_node[w['node_index']]}:")
        info = httpx.get(w["url"] + "/server_info", timeout=5).json()["srt_mock"]
        assert info["visible_devices_env"] == mask_var
        assert info["hostname"] in node_ip
        want = {"prefill_0": "0,1,2,3", "prefill_1": "4,5,6,7", "decode_0": None}[w["name"]]
        if want is None:  # whole node: no mask from srt-tui, so the worker sees Slurm's whole allocation
            assert info["visible_devices"] in (None, "0,1,2,3,4,5,6,7")
        else:
            assert info["visible_devices"] == want
    assert (job_dir / "endpoints.json").stat().st_mtime <= (job_dir / "logs" / "router.log").stat().st_mtime


def test_slow_workers_still_register_because_the_router_waits(cluster: Any, jobs: list[str], tmp_path: Path) -> None:
    """Workers load for longer than the router's own registration budget; the health gate saves them.
    Its custom benchmark then sees srtctl's SRT_* variables, pointing at this job's router and workers."""
    recipe = tmp_path / "slow.yaml"
    text = (MOCKER / "mocker-1p1d.yaml").read_text()
    text = text.replace("startup-delay: 1", "startup-delay: 8").replace("name: mocker-1p1d", "name: slow-1p1d")
    text = text.replace(
        "    disable-circuit-breaker: true\n", "    disable-circuit-breaker: true\n    worker-startup-timeout-secs: 3\n"
    )
    text = text.split("benchmark:")[0] + "benchmark: {type: custom, command: 'env | grep ^SRT | sort; sleep 600'}\n"
    assert "worker-startup-timeout-secs: 3" in text and "startup-delay: 8" in text
    recipe.write_text(text)
    job_id, job_dir = apply(str(recipe), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id, timeout=120)
    order = events(job_dir)
    assert list(dict.fromkeys(order)) == [
        "submitted",
        "starting",
        "resolving nodes",
        "workers starting",
        "workers healthy",
        "router starting",
        "router ready",
        "benchmark",
    ]
    healthy = [
        json.loads(x)["detail"]
        for x in (job_dir / "status.jsonl").read_text().splitlines()
        if json.loads(x)["stage"] == "workers healthy"
    ]
    assert healthy[-1] == "2/2" and healthy[0] != "2/2"  # the gate really waited for the slow workers
    assert status(job_id)["router"]["registered"] == {"prefill": 1, "decode": 1}
    seen = _benchmark_env(job_dir / "logs" / "benchmark.log")
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    router = endpoints["router"]["url"].removeprefix("http://")
    assert seen["SRTCTL_FRONTEND_TYPE"] == "sglang"
    assert f"{seen['SRT_FRONTEND_HOST']}:{seen['SRT_FRONTEND_PORT']}" == router
    assert seen["SRT_FRONTEND_HOST"] == endpoints["nodes"][0]["ip"]
    for w in endpoints["workers"]:
        hostport = w["url"].removeprefix("http://")
        assert seen[f"SRT_{w['role'].upper()}_ENDPOINTS"] == hostport
        assert seen[f"SRT_{w['role'].upper()}_IPS"] == hostport.rpartition(":")[0]
    assert "SRT_AGG_IPS" not in seen


def _benchmark_env(log: Path, timeout: float = 30) -> dict[str, str]:
    """The SRT_* variables a custom benchmark printed (`env | grep ^SRT`), once it has printed them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = log.read_text().splitlines() if log.exists() else []
        seen = dict(line.split("=", 1) for line in lines if line.startswith("SRT") and "=" in line)
        if "SRT_FRONTEND_PORT" in seen:
            return seen
        time.sleep(0.5)
    raise AssertionError(f"the custom benchmark printed no SRT_* variables: {log}")


def test_benchmark_stage_sends_requests_and_records_results(cluster: Any, jobs: list[str]) -> None:
    job_id, job_dir = apply(str(MOCKER / "mocker-1p1d.yaml"), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    proc = srt("wait", job_id, "--for", "done", "--timeout", "120", "-q", check=False, timeout=180)
    assert proc.returncode == 0, status(job_id)
    # srtctl's layout: one file per concurrency named with the GPUs (8 prefill + 8 decode), then the roll-up
    logs = job_dir / "logs"
    names = sorted(p.name for p in (logs / "sa-bench_isl_64_osl_8").iterdir())
    assert names == [f"results_concurrency_{c}_gpus_16_ctx_8_gen_8.json" for c in (2, 4)]
    # the recipe asks for concurrencies [2, 4] with 5 prompts each: 10 + 20 measured requests, all answered
    # by the decode worker (its name is the first generated token), after srtctl's default warm-up
    for c in (2, 4):
        level = json.loads(
            (logs / "sa-bench_isl_64_osl_8" / f"results_concurrency_{c}_gpus_16_ctx_8_gen_8.json").read_text()
        )
        assert (level["max_concurrency"], level["num_prompts"], level["completed"]) == (c, 5 * c, 5 * c)
        assert not any(level["errors"])
        assert {t.split()[0] for t in level["generated_texts"]} == {"decode_0"}
        assert level["output_throughput"] > 0 and level["p99_e2el_ms"] > 0 and level["median_ttft_ms"] > 0
    rollup = json.loads((logs / "benchmark-rollup.json").read_text())
    assert rollup["benchmark_type"] == "sa-bench" and rollup["config"]["isl"] == 64
    assert [(r["concurrency"], r["completed_requests"]) for r in rollup["runs"]] == [(2, 10), (4, 20)]
    assert all(r["throughput_toks"] > 0 for r in rollup["runs"])
    rows = (logs / "benchmark-rollup.csv").read_text().splitlines()
    assert rows[0].startswith("Config,Total GPU Count,") and len(rows) == 3
    assert "Running benchmark with concurrency: 4" in (logs / "benchmark.log").read_text()
    meta = json.loads((logs / "srtctl-metadata.json").read_text())  # what srtctl's rollup looks up in logs/
    assert meta["job_name"] == "mocker-1p1d" and meta["benchmark"]["isl"] == 64
    assert meta["resources"]["gpus_per_prefill"] == meta["resources"]["gpus_per_decode"] == 8
    # the ended job keeps its answer: the benchmark's 30 measured requests and no error, not `-`
    snap = status(job_id)
    assert snap["stage"] == "completed"
    assert (snap["requests"], snap["errors"]) == (30, 0)
    # REQ and ERR count what the deployment served (the router's: the benchmark's warm-up too), as while it ran; the
    # benchmark's own count is its line under the table (s35: REQ read 30 here and the router's total for a live job)
    table = srt("status", job_id).stdout
    served = snap["served"]
    assert served is not None and served >= 30, snap
    assert _column(table, ("REQ", "ERR")) == [f"{served:.0f}", "0"], table
    assert f"{job_id}: benchmark 30/30 completed (srt-tui results {job_id})" in table, table
    # and `srt-tui results` reads the same files: one row per concurrency, all answered
    rows = json.loads(srt("results", job_id, "--json").stdout)
    assert [(r["concurrency"], r["requests_ok"], r["requests_failed"], r["gpus"]) for r in rows] == [
        (2, 10, 0, 16),
        (4, 20, 0, 16),
    ]
    assert all(r["output_tok_s"] > 0 and r["output_tok_s_per_user"] > 0 for r in rows)
    assert wait_no_pids(job_dir) == []
    fp = json.loads((job_dir / "logs" / "fingerprint_prefill_w0.json").read_text())
    assert fp["gpu_tool"] is None and "no GPU tool answered" in fp["gpu_note"]


@pytest.mark.parametrize("how", ["srt-tui cancel", "scancel"])
def test_cancel_and_scancel_leave_no_process(cluster: Any, jobs: list[str], how: str) -> None:
    job_id, job_dir = apply(str(MOCKER / "mocker-2p1d.yaml"), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    assert job_pids(job_dir)
    if how == "scancel":
        subprocess.run(["scancel", job_id], check=True, timeout=30)
    else:
        srt("cancel", job_id)
    assert wait_no_pids(job_dir, 10) == []
    snap = status(job_id)
    deadline = time.monotonic() + 15
    while snap["slurm_state"] == "COMPLETING" and time.monotonic() < deadline:  # Slurm's own epilogue
        time.sleep(0.5)
        snap = status(job_id)
    assert snap["stage"] == "cancelled" and snap["slurm_state"] == "CANCELLED"
    # srt-tui's cancel is said as srt-tui's (cancel.json, written before scancel); a scancel by hand is guessed
    if how == "scancel":
        assert snap["stage_detail"].startswith("stopped by a signal"), snap["stage_detail"]
    else:
        assert snap["stage_detail"].startswith("cancelled with srt-tui cancel at "), snap["stage_detail"]


def test_worker_exit_fails_the_job_with_its_log(cluster: Any, jobs: list[str], tmp_path: Path) -> None:
    recipe = tmp_path / "dies.yaml"
    recipe.write_text(
        "name: dies\nmodel: {path: mock-model}\nengine: mocker\n"
        "roles:\n  agg: {nodes: 1, workers: 2, gpus: 4, args: {exit-after: 3}}\n"
        "frontend: {type: sglang-router, args: {policy: round_robin}}\n"
    )
    job_id, job_dir = apply(str(recipe), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    proc = srt("wait", job_id, "--for", "done", "--timeout", "90", "-q", check=False, timeout=120)
    assert proc.returncode == 1
    snap = status(job_id)
    assert snap["stage"] == "failed"
    assert "exited with code 3" in snap["stage_detail"] and "/logs/agg_" in snap["stage_detail"]
    assert wait_no_pids(job_dir) == []


@pytest.mark.slurm25
def test_a_refused_submission_keeps_the_rendered_files_and_says_what_slurm_said(cluster: Any, tmp_path: Path) -> None:
    """Two refused applies at once (in the same second) each keep their own files and say Slurm's reason."""
    profile = tmp_path / "wrong-partition.yaml"
    profile.write_text(
        (REPO / "profiles" / "local.yaml")
        .read_text()
        .replace("default_partition: gpu", "default_partition: nosuchpart")
    )
    out = tmp_path / "outputs"
    # --no-preflight: the preflight refuses an unknown partition before sbatch (tests/e2e/test_preflight.py)
    argv = [*SRT, "apply", "-f", str(MOCKER / "mocker-2p1d.yaml"), "-p", str(profile), "--launcher", "slurm", "-y",
            "-o", str(out), "--no-preflight"]  # fmt: skip
    both = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    said = [p.communicate(timeout=120)[1] for p in both]
    kept = sorted(p for p in out.iterdir() if p.name.startswith("failed-"))
    assert len(kept) == 2
    for proc, stderr in zip(both, said, strict=True):
        assert proc.returncode == 3 and "Traceback" not in stderr, stderr  # `--help`: 3 is Slurm failed
        assert "Slurm refused the job" in stderr and "invalid partition" in stderr.lower(), stderr
        assert "kept in" in stderr and sum(str(k) in stderr for k in kept) == 1, stderr
    assert said[0] != said[1]  # each names its own directory
    for directory in kept:
        for name in ("sbatch.sh", "plan.json", "recipe.yaml", "profile.yaml", "job.json"):
            assert (directory / name).is_file()
    assert not [p for p in out.iterdir() if p.name.isdigit() or p.name.startswith(".staged")]


def test_cancel_takes_a_bare_slurm_id_of_a_job_launched_elsewhere(cluster: Any, tmp_path: Path) -> None:
    out = subprocess.run(["sbatch", "--parsable", "--chdir", str(tmp_path), "--wrap", "sleep 300"],
                         capture_output=True, text=True, check=True, timeout=30)  # fmt: skip
    job_id = out.stdout.strip().split(";")[0]
    srt("cancel", job_id)
    deadline = time.monotonic() + 15
    state = ""
    while time.monotonic() < deadline:
        state = subprocess.run(["squeue", "-h", "--states=all", "-j", job_id, "-o", "%T"], capture_output=True,
                               text=True, timeout=30).stdout.strip()  # fmt: skip
        if state == "CANCELLED":
            break
        time.sleep(0.3)
    assert state == "CANCELLED"


def test_a_reused_slurm_job_id_keeps_the_older_job_directory(cluster: Any, jobs: list[str], tmp_path: Path) -> None:
    """Job ids restart when a controller's state is reset; an existing `<out>/<id>` must not break apply."""
    out = tmp_path / "outputs"
    probe = subprocess.run(["sbatch", "--parsable", "--hold", "--wrap", "true"], capture_output=True, text=True,
                           check=True, timeout=30).stdout.strip()  # fmt: skip
    subprocess.run(["scancel", probe], check=True, timeout=30)
    next_id = str(int(probe) + 1)  # what the controller hands out next
    old = out / next_id
    old.mkdir(parents=True)
    (old / "job.json").write_text(json.dumps({"job_id": next_id, "name": "older"}) + "\n")
    job_id, job_dir = apply(str(MOCKER / "mocker-agg2.yaml"), "-p", "local", "--launcher", "slurm", "-o", str(out))
    jobs.append(job_id)
    assert job_id == next_id and job_dir == old
    assert json.loads((job_dir / "job.json").read_text())["name"] == "mocker-agg2"
    previous = [p for p in out.iterdir() if p.name.startswith(f"{next_id}.previous-")]
    assert len(previous) == 1 and json.loads((previous[0] / "job.json").read_text())["name"] == "older"


def test_cancel_says_when_there_was_nothing_to_cancel(cluster: Any, tmp_path: Path) -> None:
    """scancel exits 0 for unknown and finished jobs; srt-tui cancel tells the operator which it was."""
    out = subprocess.run(["sbatch", "--parsable", "--chdir", str(tmp_path), "--wrap", "true"],
                         capture_output=True, text=True, check=True, timeout=30)  # fmt: skip
    job_id = out.stdout.strip().split(";")[0]
    deadline = time.monotonic() + 30
    state = ""
    while time.monotonic() < deadline and state != "COMPLETED":
        time.sleep(0.3)
        state = subprocess.run(["squeue", "-h", "--states=all", "-j", job_id, "-o", "%T"], capture_output=True,
                               text=True, timeout=30).stdout.strip()  # fmt: skip
    proc = srt("cancel", job_id, check=False)  # had ended: said, exit 0 as scancel's (which says nothing)
    assert proc.returncode == 0 and f"{job_id} already ended (COMPLETED)" in proc.stdout, proc.stdout
    unknown = srt("cancel", "987654321", check=False)
    assert unknown.returncode == 1 and "Slurm does not know this job" in unknown.stderr
    assert "cancelled" not in unknown.stdout


def _busy_under_load(public_url: str, exporter_urls: list[str], metric: str, label: str) -> dict[int, set[str]]:
    """Send completions from 8 threads until every node's exporter reads some GPU ≥ 30 % busy (the mock
    exporter follows its workers' load, issue 11 item 7), at most 20 s; the busy GPUs per node."""
    stop = threading.Event()

    def load() -> None:
        body = {"model": "mock-model", "prompt": "hi", "max_tokens": 4}
        with httpx.Client(timeout=30) as client:
            while not stop.is_set():
                client.post(public_url + "/v1/completions", json=body)

    threads = [threading.Thread(target=load, daemon=True) for _ in range(8)]
    for t in threads:
        t.start()
    busy: dict[int, set[str]] = {}
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for node, url in enumerate(exporter_urls):
                lines = [x for x in httpx.get(url, timeout=5).text.splitlines() if x.startswith(metric + "{")]
                busy[node] = {x.split(f'{label}="')[1].split('"')[0] for x in lines if float(x.split()[-1]) >= 30}
            if all(busy.values()):
                break
            time.sleep(0.5)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
    return busy


@pytest.mark.parametrize(
    ("profile", "port", "util_metric", "gpu_label"),
    [("local", 9401, "DCGM_FI_DEV_GPU_UTIL", "gpu"), ("local-rocr", 5000, "gpu_gfx_activity", "gpu_id")],
)
def test_telemetry_starts_the_profiles_gpu_exporter_on_every_node(
    cluster: Any, jobs: list[str], profile: str, port: int, util_metric: str, gpu_label: str
) -> None:
    """`telemetry: {enabled: true}`: one exporter step per node, in the shape the profile names, on the
    node's own address; read by `status`; stopped with the job."""
    job_id, job_dir = apply(str(MOCKER / "mocker-2p1d-telemetry.yaml"), "-p", profile, "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    nodes = {n["index"]: n["ip"] for n in endpoints["nodes"]}
    assert endpoints["gpu_exporter_urls"] == [f"http://{nodes[i]}:{port}/metrics" for i in (0, 1)]
    for url in endpoints["gpu_exporter_urls"]:
        text = httpx.get(url, timeout=5).text
        gpus = {
            line.split(f'{gpu_label}="')[1].split('"')[0] for line in text.splitlines() if line.startswith(util_metric)
        }
        assert gpus == {str(i) for i in range(8)}, text[:500]
    snap = status(job_id)
    readings = {(g["node_index"], g["gpu"]) for g in snap["gpus"] if not g["stale"]}
    assert readings == {(n, i) for n in (0, 1) for i in range(8)}
    assert [s for s in snap["sources"] if "exporter" in s["name"] and not s["ok"]] == []
    busy = _busy_under_load(endpoints["public_url"], endpoints["gpu_exporter_urls"], util_metric, gpu_label)
    assert all(busy[node] for node in (0, 1)), f"GPUs that read busy under load, per node: {busy}"
    for url in endpoints["gpu_exporter_urls"]:  # the mock's GPUs at 40% on node0 and 80% on node1
        httpx.post(url.replace("/metrics", "/mock/gpu"), params={"util": "40" if url.startswith(
            f"http://{nodes[0]}:") else "80"}, timeout=5).raise_for_status()  # fmt: skip
    table = srt("status", job_id).stdout.splitlines()
    assert table[0].split()[-2:] == ["GPU", "UTIL"] and table[1].endswith("60% avg"), table
    srt("cancel", job_id)
    assert wait_no_pids(job_dir, 10) == []
