"""srtctl's own Dynamo mocker recipe on the real local Slurm, with the real parts: ai-dynamo's
`dynamo.frontend` and `dynamo.mocker` from PyPI, Debian's etcd and nats-server, a tokenizer built here.

One job for the module: `recipes/mocker/agg.yaml` with NATS/etcd on a node of their own
(`infra.etcd_nats_dedicated_node`, NATS' payload limit raised) and no benchmark of its own, so the
test drives the load.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.cluster import ClusterInfo
from tests.conftest import REPO, require
from tests.e2e.jobtools import apply, events, send_requests, srt, status, wait_ready

pytestmark = [pytest.mark.slurm]
SHARED = Path(os.environ.get("SRT_SHARED_DIR") or REPO / ".." / "shared").resolve()
RECIPE = SHARED / "reference" / "srtctl-recipes-all" / "recipes" / "mocker" / "agg.yaml"
REQUESTS = 40


@dataclass(frozen=True)
class DynamoJob:
    """The running job: id, directory, endpoints.json, plan.json and the served model name."""

    job_id: str
    dir: Path
    endpoints: dict[str, Any]
    plan: dict[str, Any]
    model: str


def tiny_model(folder: Path) -> Path:
    """A model directory with a word-level tokenizer built here (no hub download): what the mocker reads."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    words = ["<unk>", "<s>", "</s>", *[chr(c) for c in range(33, 127)], *[f"w{i}" for i in range(256)]]
    tok = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    config = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "model_max_length": 4096,
              "tokenizer_class": "PreTrainedTokenizerFast",
              "chat_template": "{% for m in messages %}{{ m['content'] }} {% endfor %}"}  # fmt: skip
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    arch = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": len(words),
            "max_position_embeddings": 4096, "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
            "num_key_value_heads": 4, "intermediate_size": 128, "bos_token_id": 1, "eos_token_id": 2}  # fmt: skip
    (folder / "config.json").write_text(json.dumps(arch))
    return folder


def _require_dynamo_parts() -> None:
    for module in ("dynamo.frontend", "dynamo.mocker", "tokenizers"):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        require(found, f"`{module}` not importable: pip install --no-deps ai-dynamo ai-dynamo-runtime (see .ci/run)")
    for exe in ("etcd", "nats-server"):
        require(shutil.which(exe) is not None, f"`{exe}` not on PATH: apt-get install etcd-server nats-server")
    require(RECIPE.is_file(), f"srtctl's mocker recipe not found at {RECIPE}")


@pytest.fixture(scope="module")
def job(cluster: ClusterInfo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DynamoJob]:
    _require_dynamo_parts()
    tmp = tmp_path_factory.mktemp("dynamo")
    model = tiny_model(tmp / "tiny-model")
    profile = yaml.safe_load((REPO / "profiles" / "local.yaml").read_text())
    profile["model_paths"] = {"hf:Qwen/Qwen3-0.6B": str(model)}  # the recipe's model, built above
    profile["containers"] = {"dynamo-sglang": "unused-engines-run-on-the-host"}
    (tmp / "local-dynamo.yaml").write_text(yaml.safe_dump(profile))
    recipe = yaml.safe_load(RECIPE.read_text())
    recipe["infra"] = {"etcd_nats_dedicated_node": True, "nats_max_payload_mb": 24}
    recipe["benchmark"] = {"type": "manual"}  # the test sends the load itself, while the job serves
    (tmp / "agg.yaml").write_text(yaml.safe_dump(recipe))
    job_id, job_dir = apply(str(tmp / "agg.yaml"), "-p", str(tmp / "local-dynamo.yaml"), "--launcher", "slurm")
    try:
        wait_ready(job_id, timeout=150)
        endpoints = json.loads((job_dir / "endpoints.json").read_text())
        plan = json.loads((job_dir / "plan.json").read_text())
        yield DynamoJob(job_id, job_dir, endpoints, plan, model.name)
    finally:
        srt("cancel", job_id, check=False)


def test_stages_reach_ready_after_infra_and_system_port_health(job: DynamoJob) -> None:
    stages = events(job.dir)
    order = ["infra starting", "infra ready", "workers starting", "router starting", "router ready"]
    assert [s for s in stages if s in order] == order, stages
    assert "workers healthy" in stages[stages.index("router ready") :]
    ready = [json.loads(x) for x in (job.dir / "status.jsonl").read_text().splitlines()]
    assert next(e for e in ready if e["stage"] == "router ready")["detail"].startswith("P 0/0 D+A 1/1")
    nats, etcd = ((job.dir / "logs" / f"{name}.log").read_text() for name in ("nats", "etcd"))
    assert "Server is ready" in nats and "ready to serve client requests" in etcd
    assert "Maximum payloads over 8.00 MB" in nats  # infra.nats_max_payload_mb: 24 reached NATS


def test_infra_on_its_own_node_and_worker_health_on_its_system_port(job: DynamoJob) -> None:
    nodes = {n["index"]: n["ip"] for n in job.endpoints["nodes"]}
    assert len(set(nodes.values())) == 2
    assert {p["node_index"] for p in job.plan["infra"]} == {0}
    (worker,) = job.endpoints["workers"]
    assert worker["node_index"] == 1 and job.plan["router"]["node_index"] == 1
    sys_port = job.plan["processes"][0]["ports"]["sys"]
    assert worker["health_url"] == f"http://{nodes[1]}:{sys_port}/health"
    r = httpx.get(worker["health_url"], timeout=5)
    assert r.status_code == 200 and r.json()["status"] == "ready"
    assert job.plan["processes"][0]["env"]["NATS_SERVER"] == "nats://<ip:node0>:4222"
    # JetStream and etcd's WAL on node-local storage, per job, as srtctl keeps them in /tmp: in a private
    # mktemp -d of the job's (issue 18: never a predictable path another user could create first)
    (scratch,) = Path("/tmp").glob(f"srt-tui-{job.job_id}.*")
    assert scratch.stat().st_mode & 0o777 == 0o700
    assert {p.name for p in scratch.iterdir()} == {"nats", "etcd"}


def test_requests_through_dynamo_frontend_all_succeed_and_are_counted(job: DynamoJob) -> None:
    url = job.endpoints["router"]["url"]
    health = httpx.get(url + "/health", timeout=5).json()
    generate = [i for i in health["instances"] if i["endpoint"] == "generate"]
    assert [i["component"] for i in generate] == ["backend"]  # the one aggregated dynamo.mocker
    models = httpx.get(url + "/v1/models", timeout=5).json()
    assert [m["id"] for m in models["data"]] == [job.model]
    answered = send_requests(url, REQUESTS, model=job.model)  # each one asserted HTTP 200
    assert len(answered) == REQUESTS
    snap = status(str(job.dir))  # by directory: the job was applied under the module's user state
    assert snap["router"]["registered"] == {"agg": 1}
    (worker,) = snap["workers"]
    assert worker["health"] == "healthy"
    # counters read where plan.json's contract says: the worker's system port, the frontend's /metrics
    assert worker["requests_total"] >= REQUESTS
    assert snap["router"]["requests"] >= REQUESTS and snap["router"]["errors"] == 0


def test_the_job_relays_dynamo_health_and_system_port_metrics(job: DynamoJob) -> None:
    """For a monitor that cannot reach the nodes: the job itself copies what it sees into relay/."""
    send_requests(job.endpoints["router"]["url"], 4, model=job.model)
    relay = job.dir / "relay"
    deadline = time.monotonic() + 60  # the job relays every 5 s; a busy node can take longer
    while True:
        metrics = (relay / "agg_0.metrics").read_text() if (relay / "agg_0.metrics").exists() else ""
        registrations = (relay / "router_workers.http").read_text() if (relay / "router_workers.http").exists() else ""
        relayed = 'dynamo_component_requests_total{dynamo_component="backend",dynamo_endpoint="generate"' in metrics
        if relayed and '"endpoint":"generate"' in registrations.replace(" ", ""):
            break  # both files of one relay round (they are written one after the other)
        assert time.monotonic() < deadline, f"not relayed: {metrics[:300]!r} {registrations[:300]!r}"
        time.sleep(0.5)
    assert '"endpoint":"generate"' in registrations.replace(" ", "")
    health = json.loads((relay / "health.json").read_text())
    assert health["workers"] == {"agg_0": 200}
