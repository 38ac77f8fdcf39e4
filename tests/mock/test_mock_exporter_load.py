"""The mock GPU exporter's readings follow the load of the mock workers on its node (issue 11, item 7:
it read 0 % at 50 req/s). Real processes over HTTP: a worker on GPUs 0-1 and an exporter sharing a
load board; under load GPUs 0-1 read busy, with power and memory up, GPUs 2-3 stay idle; once the
load stops the readings decay back to idle; a value a test sets stays as set."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from srt_tui.mock.exporter import PRODUCTS
from srt_tui.mock.loadboard import RateMeter, gpus_of
from tests.mock.mockprocs import Exporter, Launcher, Worker

IDLE_W = PRODUCTS["dcgm"].idle_power_w


def _metrics(exporter: Exporter) -> dict[str, dict[str, float]]:
    text = httpx.get(exporter.metrics_url, timeout=5, trust_env=False).text
    out: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, {})[s.labels["gpu"]] = s.value
    return out


class Load:
    """Threads sending completions to a worker until stopped; counts what was answered."""

    def __init__(self, worker: Worker, threads: int) -> None:
        self.worker, self.done, self.stop = worker, 0, threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(threads)]

    def _run(self) -> None:
        body = {"model": "mock-model", "prompt": "hello", "max_tokens": 4}
        with httpx.Client(timeout=10, trust_env=False) as client:
            while not self.stop.is_set():
                if client.post(self.worker.url + "/v1/completions", json=body).status_code == 200:
                    with self.lock:
                        self.done += 1

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=10)


@pytest.fixture
def node(tmp_path: Path) -> Iterator[tuple[Worker, Exporter]]:
    launcher = Launcher(tmp_path)
    board = {"SRT_MOCK_LOAD_DIR": str(tmp_path / "board")}
    try:
        started = launcher.start_worker(
            "regular", "--latency-ms", "40", name="agg_0", env={**board, "CUDA_VISIBLE_DEVICES": "0,1"}
        )
        exporter = launcher.start_exporter("dcgm", gpus=4, node_name="node0", env=board)
        yield launcher.wait_worker(started), launcher.wait_exporter(exporter)
    finally:
        launcher.close()


def _until(check: object, timeout: float, what: str) -> dict[str, dict[str, float]]:
    deadline = time.monotonic() + timeout
    last: dict[str, dict[str, float]] = {}
    while time.monotonic() < deadline:
        last = check()  # type: ignore[operator]
        if last:
            return last
        time.sleep(0.25)
    pytest.fail(f"{what} within {timeout}s")


def test_readings_follow_the_load_and_decay(node: tuple[Worker, Exporter]) -> None:
    worker, exporter = node
    idle = _metrics(exporter)
    assert idle["DCGM_FI_DEV_GPU_UTIL"] == {str(i): 0.0 for i in range(4)}
    assert idle["DCGM_FI_DEV_POWER_USAGE"]["0"] == IDLE_W
    assert set(idle["DCGM_FI_DEV_FB_USED"]) == {"0", "1"}  # the worker's GPUs hold its weights

    with Load(worker, threads=8) as load:
        start = time.monotonic()

        def busy() -> dict[str, dict[str, float]]:
            m = _metrics(exporter)
            return m if m["DCGM_FI_DEV_GPU_UTIL"]["0"] >= 50 else {}

        loaded = _until(busy, 10, "GPU 0 did not read 50 % busy under load")
        time.sleep(1.0)
        loaded = _metrics(exporter)
        rate = load.done / (time.monotonic() - start)
    assert rate >= 50, f"only {rate:.0f} req/s: the load is too light to test"
    util, power = loaded["DCGM_FI_DEV_GPU_UTIL"], loaded["DCGM_FI_DEV_POWER_USAGE"]
    assert util["0"] >= 50 and util["1"] >= 50, util
    assert util["2"] == 0 and util["3"] == 0, util  # not the worker's GPUs
    assert power["0"] > IDLE_W + 200 and power["2"] == IDLE_W + 2, power
    assert loaded["DCGM_FI_DEV_GPU_TEMP"]["0"] > idle["DCGM_FI_DEV_GPU_TEMP"]["0"]

    def idle_again() -> dict[str, dict[str, float]]:
        m = _metrics(exporter)
        return m if m["DCGM_FI_DEV_GPU_UTIL"]["0"] < 5 else {}

    settled = _until(idle_again, 15, "GPU 0 did not decay to idle after the load stopped")
    assert settled["DCGM_FI_DEV_POWER_USAGE"]["0"] < IDLE_W + 40


def test_a_value_a_test_sets_stays_under_load(node: tuple[Worker, Exporter]) -> None:
    worker, exporter = node
    exporter.set(1, util=12)
    with Load(worker, threads=8):

        def busy() -> dict[str, dict[str, float]]:
            m = _metrics(exporter)
            return m if m["DCGM_FI_DEV_GPU_UTIL"]["0"] >= 50 else {}

        loaded = _until(busy, 10, "GPU 0 did not read 50 % busy under load")
    assert loaded["DCGM_FI_DEV_GPU_UTIL"]["1"] == 12  # pinned by the test
    assert loaded["DCGM_FI_DEV_POWER_USAGE"]["1"] == IDLE_W + 1 + (700 - IDLE_W) * 12 / 100  # follows its util


def test_rate_meter_rises_and_decays() -> None:
    meter = RateMeter()
    meter.update(0.0, 0)
    rates = [meter.update(t / 2, int(50 * t / 2)) for t in range(1, 13)]  # 50 req/s for 6 s
    assert rates[-1] > 45 and rates == sorted(rates)
    after = [meter.update(6 + t / 2, 300) for t in range(1, 13)]  # stopped
    assert after == sorted(after, reverse=True) and after[-1] < 5
    assert gpus_of("0,1") == (0, 1) and gpus_of(None) is None and gpus_of("GPU-ab,GPU-cd") is None
