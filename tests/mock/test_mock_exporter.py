"""The mock GPU exporter: DCGM- and AMD-shaped Prometheus text that prometheus_client parses, values a
test sets per GPU or for all, and its command line as a real process."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from srt_tui.mock.exporter import PRODUCTS, Gpu, default_gpus, render
from tests.mock.mockprocs import Exporter, Launcher, child_env

NAMES = {
    "dcgm": ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_TEMP"),
    "device-metrics": ("gpu_gfx_activity", "gpu_power_usage", "gpu_junction_temperature"),
}
LABEL = {"dcgm": "gpu", "device-metrics": "gpu_id"}


def _values(text: str) -> dict[str, dict[str, float]]:
    """{metric: {gpu index label: value}} for every sample, whichever label holds the index."""
    out: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        assert family.type == "gauge", family.name
        for s in family.samples:
            out.setdefault(s.name, {})[s.labels.get("gpu", s.labels.get("gpu_id", "?"))] = s.value
    return out


@pytest.mark.parametrize("kind", ["dcgm", "device-metrics"])
def test_rendered_text_has_each_products_names_labels_and_values(kind: str) -> None:
    gpus = [Gpu(37.0, 412.5, 61.0), Gpu(100.0, 690.25, 77.0), Gpu(None, 70.0, 30.0)]
    text = render(kind, "node-7", gpus)
    values = _values(text)
    util, power, temp = NAMES[kind]
    assert set(values) == {util, power, temp}
    assert values[util] == {"0": 37.0, "1": 100.0}  # no series for a GPU whose util is unset
    assert values[power] == {"0": 412.5, "1": 690.25, "2": 70.0}
    assert values[temp]["1"] == 77.0
    for name in (util, power, temp):
        assert f"# HELP {name} " in text and f"# TYPE {name} gauge" in text
    labels = next(s.labels for f in text_string_to_metric_families(text) for s in f.samples)
    host = "Hostname" if kind == "dcgm" else "hostname"
    model = "modelName" if kind == "dcgm" else "card_model"
    assert labels[LABEL[kind]] == "0" and labels[host] == "node-7" and labels[model].startswith("Mock")
    if kind == "dcgm":
        assert labels["UUID"].startswith("GPU-") and labels["device"] == "nvidia0"
        assert f'{util}{{gpu="0",' in text and text.count(" 37\n") == 1  # integers as DCGM prints them
    else:
        assert labels["serial_number"] and "gpu" not in labels


def test_defaults_are_deterministic_and_idle() -> None:
    assert default_gpus("dcgm", 3) == default_gpus("dcgm", 3)
    assert [g.util for g in default_gpus("device-metrics", 8)] == [0.0] * 8
    assert len({g.power for g in default_gpus("device-metrics", 8)}) == 8  # each GPU tells itself apart
    assert render("dcgm", "n", default_gpus("dcgm", 2)) == render("dcgm", "n", default_gpus("dcgm", 2))
    assert set(PRODUCTS) == {"dcgm", "device-metrics"}


@pytest.fixture(scope="module")
def dcgm(launcher: Launcher) -> Exporter:
    return launcher.wait_exporter(launcher.start_exporter("dcgm", gpus=4, node_name="gpu-node-1"))


def test_live_exporter_serves_what_a_test_sets(dcgm: Exporter) -> None:
    before = dcgm.scrapes()
    values = _values(httpx.get(dcgm.metrics_url, timeout=5, trust_env=False).text)
    assert values["DCGM_FI_DEV_GPU_UTIL"] == {str(i): 0.0 for i in range(4)}  # --gpus 4
    dcgm.set(util=55)  # every GPU
    state = dcgm.set(2, util=37, power=412.5, temp="none")  # one GPU, one series dropped
    assert [g["util"] for g in state] == [55.0, 55.0, 37.0, 55.0] and state[2]["temp"] is None
    response = httpx.get(dcgm.metrics_url, timeout=5, trust_env=False)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    values = _values(response.text)
    assert values["DCGM_FI_DEV_GPU_UTIL"] == {"0": 55.0, "1": 55.0, "2": 37.0, "3": 55.0}
    assert values["DCGM_FI_DEV_POWER_USAGE"]["2"] == 412.5
    assert "2" not in values["DCGM_FI_DEV_GPU_TEMP"] and len(values["DCGM_FI_DEV_GPU_TEMP"]) == 3
    assert 'Hostname="gpu-node-1"' in response.text
    assert dcgm.scrapes() == before + 2  # it counts who scraped


def test_live_exporter_rejects_bad_controls(dcgm: Exporter) -> None:
    def post(**p: str) -> httpx.Response:
        return httpx.post(dcgm.url + "/mock/gpu", params=p, timeout=5, trust_env=False)

    assert post(index="4", util="1").status_code == 400  # only GPUs 0..3
    assert post(index="1").status_code == 400  # nothing to set
    assert post(util="lots").status_code == 400
    assert post(power="-1").status_code == 400
    assert httpx.post(dcgm.metrics_url, timeout=5, trust_env=False).status_code == 405
    assert httpx.get(dcgm.url + "/nope", timeout=5, trust_env=False).status_code == 404
    assert httpx.get(dcgm.url + "/health", timeout=5, trust_env=False).status_code == 200


def test_command_line_checks_its_flags() -> None:
    run = [sys.executable, "-m", "srt_tui.mock", "exporter", "--port", "1"]
    bad_kind = subprocess.run([*run, "--kind", "intel"], capture_output=True, text=True, env=child_env(), timeout=30)
    assert bad_kind.returncode == 2 and "dcgm" in bad_kind.stderr
    no_gpus = subprocess.run([*run, "--kind", "device-metrics", "--gpus", "0"], capture_output=True, text=True,
                             env=child_env(), timeout=30)  # fmt: skip
    assert no_gpus.returncode == 2 and "--gpus" in no_gpus.stderr
