"""plan.json's typed records (`core/plan/document.py`): what srt-tui writes reads back as the same
document, old and hand-written plans still read, a wrong key is named by its path, and nothing outside
the typed reader reads plan entries as dictionaries."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.jobdir.contract import JobDirError, parse_plan
from srt_tui.core.plan.document import PLAN_VERSION, PlanDoc, PlanNginx, PlanProcess, PlanRouter
from srt_tui.core.plan.records import Record
from tests.conftest import REPO

#: every golden plan: between them workers, routers, nginx, infra (NATS/etcd), MPI ranks, telemetry, benchmarks
GOLDEN_PLANS = sorted((REPO / "tests" / "core" / "golden").glob("*.plan.json"))
SRT_TUI = REPO / "srt_tui"
#: the modules that turn plan.json text into records (and only they may read it as a dictionary)
TYPED_READER = {SRT_TUI / "core" / "plan" / f for f in ("document.py", "records.py")} | {
    SRT_TUI / "core" / "jobdir" / "contract.py"
}
#: names a plan document or one of its entries is bound to across srt_tui (`proc`, `view.plan`, `rplan`…)
PLAN_NAMES = re.compile(
    r"(^|[._])(plan|proc|procs|process|rplan|router_plan|nginx_plan|gpu_exporter|processes)(\[[^]]*\])?$"
)


@pytest.mark.parametrize("golden", GOLDEN_PLANS, ids=[p.name.removesuffix(".plan.json") for p in GOLDEN_PLANS])
def test_what_srt_tui_writes_reads_back_as_the_same_document(golden: Path) -> None:
    text = golden.read_text()
    doc = parse_plan(golden, text)
    assert json.dumps(doc.to_json(), indent=2) + "\n" == text  # one definition of each field: nothing lost either way
    assert doc.processes and all(isinstance(p, PlanProcess) for p in doc.processes)


def test_the_written_document_is_the_plans_record() -> None:
    plan = prepare(str(REPO / "recipes" / "nvidia" / "h100-2p1d-vllm-router.yaml"), "nvidia-h100").plan
    assert PlanDoc.parse(plan.to_json()) == plan.document()
    assert [p.name for p in plan.document().processes] == [p.name for p in plan.workers]


def test_a_router_entry_is_its_process_keys_then_its_own() -> None:
    router = PlanRouter(type="sglang-router", process=PlanProcess(name="router", port=8000), expected={"agg": 2})
    keys = list(router.to_json())
    assert keys[:3] == ["type", "name", "role"] and keys.index("port") < keys.index("waits_for_healthy_workers")
    assert PlanRouter.parse(router.to_json()) == router
    nginx = PlanNginx(process=PlanProcess(name="nginx"), upstreams=("http://a", None))
    assert PlanNginx.parse(nginx.to_json()) == nginx


def test_an_old_or_hand_written_plan_takes_the_defaults(tmp_path: Path) -> None:
    doc = parse_plan(tmp_path / "plan.json", '{"processes": [{"name": "agg_0", "port": 30000, "gpus": null}]}')
    assert doc.version == 1 and doc.router is None and doc.all_routers() == ()
    proc = doc.processes[0]
    assert (proc.name, proc.port, proc.gpus, proc.nnodes, proc.env, proc.url) == ("agg_0", 30000, (), 1, {}, None)
    later = parse_plan(tmp_path / "plan.json", '{"version": 1, "processes": [], "a_key_of_a_newer_minor": 1}')
    assert later.processes == ()


@pytest.mark.parametrize(
    "text,said",
    [
        ('{"processes": [{"name": "a", "port": "30000"}]}', "key `processes[0].port`: expected a non-negative integer"),
        ('{"processes": [], "router": {"expected": {"prefill": "one"}}}', "key `router.expected.prefill`: expected a"),
        ('{"processes": [], "routers": [{"command": "sglang"}]}', "key `routers[0].command`: expected a list of str"),
        ('{"processes": [], "gpu_exporter": {"launched": "yes"}}', "key `gpu_exporter.launched`: expected a boolean"),
        ('{"processes": [], "mounts": [{"host": "/a"}]}', "key `mounts[0].container` is missing"),
        ('{"processes": [], "sbatch_directives": [["time"]]}', "key `sbatch_directives[0]`: expected a list of 2"),
        ('{"processes": [{"env": {"A": 1.5}}]}', "key `processes[0].env.A`: expected a string, found a number"),
        ('{"processes": [{"differs_from_srtctl": [7]}]}', "key `processes[0].differs_from_srtctl[0]`: expected an obj"),
        ('{"name": "no-workers"}', "key `processes` is missing"),
        (f'{{"version": {PLAN_VERSION + 1}, "processes": []}}', f"format version {PLAN_VERSION + 1} is newer"),
    ],
)
def test_a_damaged_key_is_named_by_its_path(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(JobDirError) as err:
        parse_plan(tmp_path / "plan.json", text)
    assert err.value.short.startswith(f"plan.json: {said}"), err.value.short
    assert err.value.fix


def test_plan_entries_are_typed_records_not_dictionaries() -> None:
    """mypy --strict then refuses `proc.get(...)` on any of them: a record has no `get`."""
    hints = {f.name: t for f in fields(PlanDoc) for n, t in get_type_hints(PlanDoc).items() if n == f.name}
    for key in ("processes", "infra", "telemetry", "router", "routers", "nginx", "benchmark", "gpu_exporter"):
        records = [a for a in (hints[key], *get_args(hints[key])) if isinstance(a, type) and issubclass(a, Record)]
        assert records, f"PlanDoc.{key} is {hints[key]}: entries must be read as records"
    untyped = [k for k, t in hints.items() if t is Any or Any in get_args(t)]
    assert untyped == [], untyped
    free_form = [k for k, t in hints.items() if any(Any in get_args(a) for a in get_args(t))]
    assert free_form == ["identity"], free_form  # the recipe's own free-form block, never read by the monitor


def test_no_plan_entry_is_read_as_a_dictionary_outside_the_typed_reader() -> None:
    """No `.get("…")` or `["…"]` on a plan, a process or a router entry anywhere in srt_tui but the reader."""
    found = []
    for path in sorted(SRT_TUI.rglob("*.py")):
        if path in TYPED_READER:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            receiver = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                receiver = node.func.value
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                receiver = node.value if isinstance(node.slice.value, str) else None
            if receiver is not None and PLAN_NAMES.search(ast.unparse(receiver)):
                found.append(f"{path.relative_to(REPO)}:{receiver.lineno}: {ast.unparse(node)}")
    assert found == [], "\n".join(found)
