"""`srt-tui bench JOB` against a real mock worker's job directory: the figures, --json, and the clear
refusal of a job that is not serving (the job view's `b` runs the same `run_smoke`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from srt_tui.bench.stats import Outcome
from srt_tui.cli.main import main
from srt_tui.monitor.probes.smoke import WAITING_NOTE, done_line, summarize
from tests.mock.mockprocs import Worker
from tests.monitor.jobdirs import write_agg_job


def test_bench_json_counts_every_request_and_its_latency(
    worker: Worker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = write_agg_job(tmp_path / "job", "local-sm1", [(worker, 0)], nodes=1)
    assert main(["bench", str(job), "-n", "6", "--concurrency", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["status"], doc["requests"], doc["ok"], doc["failed"]) == ("ok", 6, 6, 0)
    assert doc["url"] == worker.url and doc["model"]
    assert 0 < doc["latency_p50_ms"] <= doc["latency_p99_ms"]
    assert 0 < doc["ttft_p50_ms"] <= doc["latency_p99_ms"] and doc["output_tokens_per_s"] > 0


def test_bench_text_is_one_line_of_figures_with_units(
    worker: Worker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = write_agg_job(tmp_path / "job", "local-sm2", [(worker, 0)], nodes=1)
    assert main(["bench", str(job), "-n", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("local-sm2: 3 requests, 4 at a time, to http://")
    assert out[1].startswith("local-sm2: 3/3 ok, 0 failed · latency p50 ") and " ms p99 " in out[1]
    assert "tok/s" in out[1]


def test_bench_refuses_a_job_that_is_not_serving(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = write_agg_job(tmp_path / "job", "local-sm3", [], nodes=1, stages=("submitted", "starting"))
    assert main(["bench", str(job)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "srt-tui: error: job local-sm3 is not serving yet (stage starting) (fix: srt-tui wait local-sm3 --for ready)"
    ]


def test_bench_says_what_it_takes_for_bad_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bench", "local-1", "-n", "0"])
    assert exc.value.code == 2
    assert "expected a whole number of at least 1, not '0'" in capsys.readouterr().err


def test_summary_of_failures_keeps_the_most_frequent_errors() -> None:
    busy, late = Outcome(False, 1.0, error="HTTP 503: busy"), Outcome(False, 2.0, error="timeout after 60s")
    outcomes = [Outcome(True, 0.1, 0.02, 16), busy, busy, late]
    result = summarize("http://x", "m", outcomes, 2.0)
    assert (result.ok, result.failed, result.latency_p50_ms) == (1, 3, 100.0)
    assert result.errors == (("HTTP 503: busy", 2), ("timeout after 60s", 1))
    assert result.line().startswith("1/4 ok, 3 failed · latency p50 100 ms p99 100 ms · TTFT p50 20 ms")


def test_every_failure_is_counted_by_its_kind_and_the_note_speaks_only_of_kinds_shown() -> None:
    """New-operator pass: the job view's result named the most frequent failure only, `✗ 0/20 ok, 20 failed · 16×
    HTTP 503: … · not in the router's errors: it counts failed answers, not waits` (the 4 timeouts the note speaks of
    left out), and `12/20 ok, 8 failed · 4× timeout` left 4 unexplained (counted by whole text, cut to three). Every
    kind is now counted, the counts add up to the failed total, and the note follows the timeouts it speaks of."""
    no_workers = Outcome(False, 0.1, error="HTTP 503: No available workers: 2 prefill, 0 decode")
    late = Outcome(False, 60.0, error="timeout after 60s")
    result = summarize("http://x", "m", [no_workers] * 16 + [late] * 4, 60.0)
    line = done_line(result, "")
    assert line.endswith(" · 16× HTTP 503: No available workers: 2 prefill, 0 decode · 4× timeout after 60s · "
                         + WAITING_NOTE), line  # fmt: skip
    # 8 failures of 5 kinds, the HTTP 502s differing by their text: each kind said, 4 + 1 + 1 + 1 + 1 = 8
    others = [
        Outcome(False, 0.1, error="HTTP 502: upstream decode_0 refused"),
        Outcome(False, 0.1, error="ClientError: connection reset"),
        Outcome(False, 0.1, error="stream carried no tokens"),
        Outcome(False, 0.1, error="stream error: engine died"),
    ]
    mixed = summarize("http://x", "m", [Outcome(True, 0.1, 0.02, 16)] * 12 + [late] * 4 + others, 60.0)
    assert sum(count for _error, count in mixed.errors) == mixed.failed == 8
    assert mixed.failures() == (
        "4× timeout after 60s · 1× HTTP 502: upstream decode_0 refused · 1× ClientError: connection reset · "
        "1× stream carried no tokens · 1× stream error: engine died"
    )
    busy = [Outcome(False, 0.1, error=f"HTTP 503: No available workers: {n} prefill, 0 decode") for n in (2, 2, 1)]
    assert summarize("http://x", "m", busy, 1.0).errors == (
        ("HTTP 503, e.g. No available workers: 2 prefill, 0 decode", 3),
    )
    ok = summarize("http://x", "m", [Outcome(True, 0.1, 0.02, 16)] * 12 + others[:1] * 8, 60.0)
    assert done_line(ok, "").endswith(" · 8× HTTP 502: upstream decode_0 refused")  # no timeout: no note


def test_bench_says_when_the_url_does_not_answer_from_here(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A job that says it serves, but nothing answers at its URL from this machine (nodes not reachable)."""
    from types import SimpleNamespace

    from tests.mock.mockprocs import free_port

    port = free_port()
    dead = SimpleNamespace(name="agg_0", role="regular", port=port, url=f"http://127.0.0.1:{port}")
    job = write_agg_job(tmp_path / "job", "local-sm4", [(dead, 0)], nodes=1)  # type: ignore[list-item]
    assert main(["bench", str(job), "--json"]) == 1
    out = capsys.readouterr()
    assert json.loads(out.out)["status"] == "error"
    assert f"http://127.0.0.1:{port} does not answer from here (connect to 127.0.0.1:{port} failed" in out.err
    assert "through the SSH port-forward the job view shows" in out.err


def test_bench_says_what_sglang_router_adds_to_its_ttft() -> None:
    """The new-operator pass read bench TTFT p50 34 ms beside the Serving panel's 6.4 ms with nothing saying why:
    behind sglang-router (no TCP_NODELAY towards clients) the smoke line says what the router adds; behind the
    routers that set it, nothing."""
    from typing import cast

    from srt_tui.monitor.model import JobSnapshot, RouterStatus
    from srt_tui.monitor.probes.smoke import router_note

    def behind(kind: str) -> JobSnapshot:
        return cast(JobSnapshot, type("Snap", (), {"router": RouterStatus(type=kind, url=None), "routers": ()})())

    assert router_note(behind("sglang-router")) == "sglang-router adds up to 40 ms to TTFT (no TCP_NODELAY)"
    assert router_note(behind("vllm-router")) == router_note(behind("smg")) == ""


def test_the_smoke_line_writes_its_token_rate_as_every_other_tok_s() -> None:
    """Operator pass (op9, 16): the smoke line said `1266.4 tok/s` where the Serving panel and `status` say
    `1.3k tok/s`: one formatter (`cells.tokens_per_s`) for both."""
    from srt_tui.monitor.cells import tokens_per_s

    outcomes = [Outcome(True, 0.1, 0.02, 16)] * 158  # 2528 tokens in 2 s
    line = summarize("http://x", "m", outcomes, 2.0).line()
    assert line.endswith(" · 1.3k tok/s in 2.00 s") and tokens_per_s(1264.0) == "1.3k tok/s", line
    assert summarize("http://x", "m", outcomes[:4], 2.0).line().endswith(" · 32 tok/s in 2.00 s")


def test_the_smoke_test_says_a_front_that_took_the_connection_did_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """s36 new-operator pass: with the router stopped (`kill -STOP`), `b` said `… does not answer from here (timed
    out) (fix: run it on a node that reaches the job's nodes …)` beside the router panel's `connected, no reply`: a
    socket that listens and never replies reads as a process that does not answer, not as the network."""
    import asyncio
    import socket

    from srt_tui.monitor.probes import smoke

    monkeypatch.setattr(smoke, "MODELS_TIMEOUT_S", 0.3)
    with socket.socket() as listener:  # the kernel accepts; nothing ever replies
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(smoke.NotServing) as got:
            asyncio.run(smoke.served_model(url))
    assert got.value.message.startswith(f"{url} accepted the connection but did not answer in 0.3 s")
    assert "from here" not in got.value.message and "port-forward" not in got.value.fix
