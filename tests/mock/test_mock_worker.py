"""A live mock worker: identity and GPU mask, info shapes, generation shapes, test controls, lifecycle."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest

from tests.mock.mockprocs import Launcher, Worker, child_env, free_port, port_open, wait_until

MASK_ENV = {"ROCR_VISIBLE_DEVICES": "0,1,2,3", "HIP_VISIBLE_DEVICES": "4"}


@pytest.fixture(scope="module")
def amd(launcher: Launcher) -> Worker:
    """A regular sglang worker launched the AMD way: mask in ROCR_VISIBLE_DEVICES."""
    worker = launcher.start_worker(
        "regular", "--visible-devices-env", "ROCR_VISIBLE_DEVICES", "--tp-size", "4", name="amd0", env=MASK_ENV
    )
    return launcher.wait_worker(worker)


@pytest.fixture(scope="module")
def vllm_prefill(launcher: Launcher) -> Worker:
    """A vLLM-flavour prefill worker."""
    return launcher.wait_worker(launcher.start_worker("prefill", flavor="vllm", name="vp0"))


def _events(body: bytes) -> list[Any]:
    """SSE ``data:`` payloads, JSON-decoded, ``[DONE]`` kept as a string."""
    out: list[Any] = []
    for block in body.decode().split("\n\n"):
        if block.startswith("data: "):
            data = block[6:]
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def test_banner_and_server_info_report_the_rocr_mask(amd: Worker) -> None:
    banner = amd.proc.log.read_text().splitlines()[0]
    assert banner.startswith("mock worker amd0 role=regular")
    assert f"port={amd.port}" in banner and "pid=" in banner and "ROCR_VISIBLE_DEVICES=0,1,2,3" in banner
    for path in ("/server_info", "/get_server_info"):
        info = amd.get(path).json()
        assert info["disaggregation_mode"] == "null"
        assert info["model_path"] == info["served_model_name"] == "mock-model"
        assert (info["tp_size"], info["dp_size"]) == (4, 1)
        assert info["version"]
        mock = info["srt_mock"]
        assert mock["name"] == "amd0" and mock["role"] == "regular" and mock["flavor"] == "sglang"
        assert mock["pid"] == amd.proc.popen.pid
        assert mock["visible_devices_env"] == "ROCR_VISIBLE_DEVICES"
        assert mock["visible_devices"] == "0,1,2,3"
        assert mock["visibility_env"] == MASK_ENV


def test_info_and_load_shapes_per_flavour(amd: Worker, vllm_prefill: Worker) -> None:
    for worker in (amd, vllm_prefill):
        for path in ("/model_info", "/get_model_info"):
            assert worker.get(path).json()["model_path"] == "mock-model"
        models = worker.get("/v1/models").json()
        assert models["object"] == "list" and [m["id"] for m in models["data"]] == ["mock-model"]
        assert worker.post("/flush_cache").status_code == 200
        for path in ("/health", "/health_generate", "/ping"):
            assert worker.get(path).status_code == 200
    assert amd.get("/get_load").json() == [{"dp_rank": 0, "num_reqs": 0, "num_tokens": 0}]
    assert vllm_prefill.get("/get_load").json() == {"load": 0}
    assert vllm_prefill.get("/server_info").json()["disaggregation_mode"] == "prefill"


@pytest.mark.parametrize("path", ["/generate", "/v1/completions", "/v1/chat/completions"])
@pytest.mark.parametrize("stream", [False, True])
def test_generation_shapes(amd: Worker, path: str, stream: bool) -> None:
    if path == "/generate":
        body: dict[str, Any] = {"text": "one two three", "sampling_params": {"max_new_tokens": 4}}
    elif path == "/v1/completions":
        body = {"model": "mock-model", "prompt": "one two three", "max_tokens": 4}
    else:
        body = {"model": "mock-model", "messages": [{"role": "user", "content": "one two three"}]}
        body["max_completion_tokens"] = 4
    body.update(stream=stream, stream_options={"include_usage": True}, bootstrap_room=7, bootstrap_port=None)
    response = amd.post(path, body)
    assert response.status_code == 200
    expected = "amd0 tok1 tok2 tok3"
    if not stream:
        answer = response.json()
        assert answer["srt_mock"]["worker"] == "amd0" and answer["srt_mock"]["bootstrap_room"] == 7
        if path == "/generate":
            assert answer["text"] == expected and answer["meta_info"]["completion_tokens"] == 4
            assert answer["meta_info"]["finish_reason"]["type"] == "length"
        elif path == "/v1/completions":
            assert answer["object"] == "text_completion" and answer["choices"][0]["text"] == expected
        else:
            assert answer["object"] == "chat.completion"
            assert answer["choices"][0]["message"] == {"role": "assistant", "content": expected}
        if path != "/generate":
            assert answer["usage"] == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
        return
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _events(response.content)
    assert events[-1] == "[DONE]"
    events = events[:-1]
    assert events[0]["srt_mock"]["worker"] == "amd0"
    if path == "/generate":
        assert [e["text"] for e in events] == ["amd0", "amd0 tok1", "amd0 tok1 tok2", expected]
        return
    usage = events[-1]
    assert usage["choices"] == [] and usage["usage"]["completion_tokens"] == 4
    if path == "/v1/completions":
        assert "".join(e["choices"][0]["text"] for e in events[:-1]) == expected
    else:
        assert events[0]["object"] == "chat.completion.chunk"
        assert events[0]["choices"][0]["delta"]["role"] == "assistant"
        assert "".join(e["choices"][0]["delta"]["content"] for e in events[:-1]) == expected
    assert events[-2]["choices"][0]["finish_reason"] == "length"


def test_default_max_tokens_and_no_usage_without_asking(amd: Worker) -> None:
    answer = amd.post("/v1/completions", {"prompt": "x"}).json()
    assert answer["usage"]["completion_tokens"] == 16
    events = _events(amd.post("/v1/completions", {"prompt": "x", "max_tokens": 2, "stream": True}).content)
    assert all(e == "[DONE]" or e["choices"] for e in events)


def test_vllm_prefill_returns_one_token_and_kv_params(vllm_prefill: Worker) -> None:
    kv_in = {"do_remote_decode": True, "do_remote_prefill": False, "remote_engine_id": None}
    answer = vllm_prefill.post(
        "/v1/completions", {"prompt": "a b", "max_tokens": 50, "kv_transfer_params": kv_in}
    ).json()
    assert answer["choices"][0]["text"] == "vp0" and answer["usage"]["completion_tokens"] == 1
    kv = answer["kv_transfer_params"]
    assert kv["do_remote_prefill"] is True and kv["remote_engine_id"] == "mock-engine-vp0"
    assert kv["remote_block_ids"] and kv["remote_port"]
    plain = vllm_prefill.post("/v1/completions", {"prompt": "a b", "max_tokens": 50}).json()
    assert "kv_transfer_params" not in plain


def test_bad_requests(amd: Worker) -> None:
    bad_json = httpx.post(amd.url + "/v1/completions", content=b"{nope", timeout=5, trust_env=False)
    assert bad_json.status_code == 400 and bad_json.json()["object"] == "error"
    assert amd.post("/v1/completions", {"max_tokens": 3}).status_code == 400
    assert amd.post("/v1/chat/completions", {"messages": []}).status_code == 400
    assert amd.post("/v1/completions", {"prompt": "x", "max_tokens": "many"}).status_code == 400
    assert amd.get("/no/such/path").status_code == 404
    assert amd.get("/generate").status_code == 405
    assert amd.post("/mock/fail", rate="2").status_code == 400
    assert amd.post("/mock/health", ok="maybe").status_code == 400


def test_health_control(amd: Worker) -> None:
    assert amd.post("/mock/health", ok="0").json() == {"healthy": False}
    try:
        assert amd.get("/health").status_code == 503
        assert amd.get("/ping").status_code == 503
        assert amd.post("/v1/completions", {"prompt": "x", "max_tokens": 1}).status_code == 200
        assert amd.stats()["healthy"] is False
    finally:
        amd.post("/mock/health", ok="1")
    assert amd.get("/health").status_code == 200


def test_fail_control_counts_failures(amd: Worker) -> None:
    before = amd.stats()
    amd.post("/mock/fail", rate="1")
    try:
        for _ in range(3):
            response = amd.post("/v1/completions", {"prompt": "x", "max_tokens": 1})
            assert response.status_code == 500 and "injected" in response.json()["message"]
    finally:
        amd.post("/mock/fail", rate="0")
    assert amd.post("/v1/completions", {"prompt": "x", "max_tokens": 1}).status_code == 200
    after = amd.stats()
    assert after["generation"]["failed"] - before["generation"]["failed"] == 3
    assert after["generation"]["ok"] - before["generation"]["ok"] == 1
    assert after["paths"]["/v1/completions"]["failed"] >= 3
    assert after["failed"] - before["failed"] == 3


def test_delay_and_load_controls(amd: Worker) -> None:
    amd.post("/mock/delay", ms="300")
    try:
        started = time.monotonic()
        assert amd.post("/v1/completions", {"prompt": "x", "max_tokens": 1}).status_code == 200
        assert time.monotonic() - started >= 0.29
    finally:
        amd.post("/mock/delay", ms="0")
    assert amd.post("/mock/load", value="7", tokens="900").status_code == 200
    assert amd.get("/get_load").json() == [{"dp_rank": 0, "num_reqs": 7, "num_tokens": 900}]
    amd.post("/mock/load")
    assert amd.get("/get_load").json()[0]["num_reqs"] == 0


def test_running_requests_are_visible_in_load_and_stats(launcher: Launcher) -> None:
    worker = launcher.wait_worker(launcher.start_worker("regular", "--latency-ms", "1500", flavor="vllm"))
    with httpx.Client(trust_env=False, timeout=10) as client:
        thread = threading.Thread(
            target=client.post, args=(worker.url + "/v1/completions",), kwargs={"json": {"prompt": "x"}}
        )
        thread.start()
        wait_until(lambda: worker.stats()["running"] == 1, 5, "the slow request to start")
        assert worker.get("/get_load").json() == {"load": 1}
        thread.join()
    assert worker.get("/get_load").json() == {"load": 0}


def test_recent_requests_and_jsonl_log(launcher: Launcher, tmp_path: Any) -> None:
    log = tmp_path / "requests.jsonl"
    # a regular worker: it logs the bootstrap fields without waiting on a prefill at them (a decode would)
    worker = launcher.wait_worker(launcher.start_worker("regular", "--log", str(log), name="logged"))
    body = {"prompt": "x", "max_tokens": 1, "bootstrap_room": 42, "bootstrap_host": "h", "bootstrap_port": 1}
    worker.post("/v1/completions", body)
    worker.post("/v1/completions", {"prompt": "word " * 5000, "max_tokens": 1, "input_ids": list(range(100))})
    recent = worker.get("/mock/requests", n="5").json()["requests"]
    assert recent[-2]["body"]["bootstrap_room"] == 42
    big = recent[-1]["body"]
    assert big["prompt"].endswith("(25000 chars)") and len(big["prompt"]) < 300
    assert len(big["input_ids"]) == 33 and big["input_ids"][-1] == "... (100 items)"
    assert worker.stats()["pd"]["bootstrap_seen"] == 1
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    generation = [e for e in lines if e["path"] == "/v1/completions"]
    assert generation and generation[0]["status"] == 200 and generation[0]["bootstrap_room"] == 42


def test_startup_delay_keeps_the_port_closed(launcher: Launcher) -> None:
    started = time.monotonic()
    worker = launcher.start_worker("regular", "--startup-delay", "1.5", name="slow")
    while "loading model" not in worker.proc.log.read_text():
        assert time.monotonic() - started < 10, worker.proc.tail()
        time.sleep(0.02)
    assert not port_open(worker.port)
    time.sleep(0.5)
    assert not port_open(worker.port)
    launcher.wait_worker(worker)
    assert time.monotonic() - started >= 1.5
    assert "ready:" in worker.proc.log.read_text()


def test_exit_after_exits_with_code_3(launcher: Launcher) -> None:
    worker = launcher.start_worker("regular", "--exit-after", "0.6", name="doomed")
    assert worker.proc.popen.wait(timeout=15) == 3
    log = worker.proc.log.read_text()
    assert "ready: doomed" in log and "exits with code 3" in log
    assert not port_open(worker.port)


def test_sigterm_exits_cleanly_with_idle_and_busy_connections(launcher: Launcher) -> None:
    worker = launcher.wait_worker(launcher.start_worker("regular", "--latency-ms", "5000", name="term"))
    with httpx.Client(trust_env=False) as client, socket.create_connection(("127.0.0.1", worker.port)) as busy:
        assert client.get(worker.url + "/health").status_code == 200  # leaves an idle keep-alive connection
        busy.sendall(b'POST /v1/completions HTTP/1.1\r\nContent-Length: 14\r\n\r\n{"prompt":"x"}')
        wait_until(lambda: worker.stats()["running"] == 1, 5, "the slow request to start")
        worker.proc.popen.send_signal(signal.SIGTERM)
        assert worker.proc.popen.wait(timeout=5) == 0
    log = worker.proc.log.read_text()
    assert "stopped: term" in log and "Traceback" not in log


@pytest.mark.parametrize(
    "args",
    [
        ["--port", "1", "--fail-rate", "2"],
        ["--port", "1", "--role", "router"],
        ["--port", "1", "--name", "two words"],
        ["--role", "decode"],
    ],
)
def test_invalid_arguments_exit_2(args: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "srt_tui.mock", *args], env=child_env(), capture_output=True, timeout=20
    )
    assert result.returncode == 2, result.stderr


def test_serve_is_the_default_subcommand(launcher: Launcher) -> None:
    port = free_port()
    proc = launcher.spawn(
        "default-sub", [sys.executable, "-m", "srt_tui.mock", "--host", "127.0.0.1", "--port", str(port)]
    )
    worker = Worker("worker", "regular", port, proc)
    launcher.wait_worker(worker)
    assert worker.get("/server_info").json()["srt_mock"]["name"] == f"worker-{port}"
