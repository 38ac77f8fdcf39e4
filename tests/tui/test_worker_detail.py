"""Enter on a worker row opens its detail (issue 11): command, environment with secrets masked, GPUs and
mask, ports, health history, log tail; `l` opens its log in the job view, Esc goes back."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from srt_tui.monitor.model import HealthChange
from srt_tui.tui.help_screen import HelpScreen
from srt_tui.tui.logs.screen import LogViewerScreen
from srt_tui.tui.monitor.screen import MonitorScreen
from srt_tui.tui.monitor.worker_detail import WorkerDetail, ordinal
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

RECIPE, PROFILE = "amd/mi300x-vllm-moriio-colocated.yaml", "amd-mi300x"
#: a value set for a known secret in a process's env (a hand-edited plan), and one for a declared name
HF_SECRET = "hf_never-shown-0123456789"
OWN_SECRET = "s3cr3t-of-the-profile-42"


def _job_dir(tmp_path: Path) -> Path:
    job_dir = tmp_path / "81240"
    (job_dir / "logs").mkdir(parents=True)
    plan = frozen.plan_json(RECIPE, PROFILE)
    proc = plan["processes"][0]
    proc["env"] = {**proc["env"], "HF_TOKEN": HF_SECRET, "MY_SERVICE_KEY": OWN_SECRET}
    plan["secret_env"] = [*plan.get("secret_env", []), "MY_SERVICE_KEY"]
    (job_dir / "plan.json").write_text(json.dumps(plan))
    log = job_dir / proc["log"]
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(f"loading shard {i}\n" for i in range(30)) + f"token={OWN_SECRET} accepted\nready\n")
    return job_dir


async def test_help_in_the_job_view_opens_on_the_job_views_own_keys_at_80x24(tmp_path: Path) -> None:
    """`?` at 80×24 shows what this screen does (cancel, clone, smoke test) on its first page, before the
    workers table's cursor keys and the app's keys; no scope is a Python class name (issue 21 review)."""
    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=_job_dir(tmp_path))
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#job-workers", DataTable).focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        scopes = [r.scope for r in app.screen.rows]
        assert scopes[0] == "this screen" and scopes[-1] == "outside text fields"
        assert all(s == s.lower() or s.endswith(" step") for s in scopes)
        shown = app.export_screenshot().replace("&#160;", " ")  # what the 24 rows show
        for action in ("Cancel job", "Clone the job", "Smoke test"):
            assert action in shown


async def test_help_in_the_worker_detail_says_ctrl_c_quits_as_it_does(tmp_path: Path) -> None:
    """Operator pass (stop 29): Help in the worker detail listed `^c Copy selected text` (Textual's, in a modal's
    keys), and ^c quit: the app's priority keys win, and Help says what they do."""
    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=_job_dir(tmp_path))
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=(120, 36)) as pilot:
        await _open_first_worker(app, pilot)
        assert isinstance(app.screen, WorkerDetail)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        said = {r.description for r in app.screen.rows if r.key.lower() in ("^c", "ctrl+c")}
        assert "Copy selected text" not in said and any("Quit" in d for d in said), said


async def test_enter_on_a_worker_shows_its_detail_with_secrets_masked(tmp_path: Path) -> None:
    job_dir = _job_dir(tmp_path)
    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=job_dir)
    first = snap.workers[0]
    history = (HealthChange("2026-03-01T11:20:00Z", "unknown", "waiting for the first answer"),
               HealthChange("2026-03-01T11:21:07Z", "healthy", "HTTP 200"))  # fmt: skip
    snap = replace(snap, workers=(replace(first, health_history=history), *snap.workers[1:]))
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.in_job_view
        table = screen.query_one("#job-workers", DataTable)
        table.focus()
        await pilot.press("question_mark")  # `?` says what Enter does here
        assert isinstance(app.screen, HelpScreen)
        assert ("worker table", "Worker detail") in {(r.scope, r.description) for r in app.screen.rows}
        await pilot.press("escape")
        await pilot.press("g", "enter")
        detail = app.screen
        assert isinstance(detail, WorkerDetail) and detail.status.name == first.name
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert detail.facts is not None and not detail.facts.problem
        text = str(detail.query_one("#worker-detail-text").render())
        shown = app.export_screenshot()
        for secret in (HF_SECRET, OWN_SECRET):
            assert secret not in text and secret not in shown
        assert "HF_TOKEN=***" in text and "MY_SERVICE_KEY=***" in text
        assert f"ROCR_VISIBLE_DEVICES={first.mask}" in text  # the mask variable and its value
        assert f"http {first.port}" in text
        assert "11:21:07 UTC  healthy" in text  # the health history
        assert "token=*** accepted" in text and "ready" in text  # the log tail, the secret masked there too
        assert "vllm" in detail.facts.command  # the planned command
        lines = text.splitlines()
        start, end = (
            lines.index(next(x for x in lines if x.startswith("command"))),
            lines.index(next(x for x in lines if x.startswith(("shell", "container", "environment")))),
        )
        wrapped = [x for x in lines[start + 1 : end] if x.strip()]
        assert len(wrapped) > 1 and all(x.startswith("  ") for x in wrapped)  # under itself, not at column 0
        assert "".join(x.replace(" ", "") for x in wrapped) == detail.facts.command.replace(" ", "")  # all of it
        await pilot.press("l")  # the full log: the log viewer, on this worker's log
        await pilot.pause()
        viewer = app.screen
        assert isinstance(viewer, LogViewerScreen) and viewer.ref.name == first.name
        await pilot.press("q")  # closes the viewer, back in the worker's detail (operator pass: it went two back)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, WorkerDetail) and app.screen.status.name == first.name, app.screen
        await pilot.press("escape")  # and then the job view
        await pilot.pause()
        assert app.screen is screen
        table.focus()
        await pilot.press("enter")
        assert isinstance(app.screen, WorkerDetail)
        await pilot.press("escape")
        assert app.screen is screen


async def test_a_missing_plan_is_said_not_guessed(tmp_path: Path) -> None:
    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=tmp_path / "gone")
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#job-workers", DataTable).focus()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, WorkerDetail)
        assert "plan.json is missing" in str(detail.query_one("#worker-detail-text").render())


@pytest.mark.parametrize("size", [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")])
def test_worker_detail_snapshot(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """The detail of an AMD prefill worker (ROCR mask) with a health history; secrets show as ***."""
    monkeypatch.chdir(tmp_path)  # the log path shows relative to here, the same on every host
    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=_job_dir(tmp_path))
    first = snap.workers[0]
    history = (HealthChange("2026-03-01T11:20:00Z", "unknown", "not listening yet (loading?)"),
               HealthChange("2026-03-01T11:21:07Z", "healthy", "HTTP 200"))  # fmt: skip
    snap = replace(snap, workers=(replace(first, health_history=history), *snap.workers[1:]))

    async def open_detail(pilot: Any) -> None:
        await pilot.pause()
        pilot.app.screen.query_one("#job-workers", DataTable).focus()
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(frozen_app([snap], open_job="81240"), terminal_size=size, run_before=open_detail)


async def test_the_open_detail_follows_the_live_monitor_when_the_worker_dies(tmp_path: Path) -> None:
    """Real parts: the real Monitor polling a real mock worker; it is killed while its detail is open,
    and the detail's health and history show it going down (no reopening)."""
    from tests.monitor.tui_apps import live_agg_app, until_healthy

    with live_agg_app(tmp_path, "local-wd") as (app, worker, _job_dir):
        async with app.run_test(size=(100, 30)) as pilot:
            screen = app.screen
            assert isinstance(screen, MonitorScreen)
            await until_healthy(pilot, screen, "local-wd")
            screen.open_job("local-wd")
            await pilot.pause()
            await pilot.press("enter")
            detail = app.screen
            assert isinstance(detail, WorkerDetail) and detail.status.health == "healthy"
            worker.proc.stop()
            for _ in range(50):
                await pilot.pause(0.1)
                if detail.status.health == "down":
                    break
            assert [c.health for c in detail.status.health_history][-2:] == ["healthy", "down"]
            assert "down" in str(detail.query_one("#worker-detail-text").render())
            assert app.screen is detail  # still open, redrawn in place


async def _open_first_worker(app: Any, pilot: Any) -> None:
    """Enter on the job view's first worker, its facts read."""
    await pilot.pause()
    app.screen.query_one("#job-workers", DataTable).focus()
    await pilot.press("g", "enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_ctrl_d_and_ctrl_u_scroll_the_detail_as_in_the_job_view(tmp_path: Path) -> None:
    """Operator pass (issue 21): the job view's `ctrl+d scrolls down` did nothing in the worker detail."""
    from textual.containers import VerticalScroll

    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=_job_dir(tmp_path))
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_first_worker(app, pilot)
        body = app.screen.query_one("#worker-detail-body", VerticalScroll)
        assert isinstance(app.screen, WorkerDetail) and body.max_scroll_y > 0
        await pilot.press("ctrl+d")
        await pilot.pause()
        down = body.scroll_y
        assert down > 0
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert body.scroll_y < down


@pytest.mark.parametrize(("job_id", "hosts"), [("81240", ("gpu-017", "gpu-018")), ("local-3", ("local0", "local1"))])
async def test_the_detail_names_slurms_host_of_the_workers_node(
    tmp_path: Path, job_id: str, hosts: tuple[str, str]
) -> None:
    """Operator pass (issue 21): the heading said `node0` while `srun -w` below named Slurm's `node1`: the job's
    node index is not Slurm's name, so the heading gives both, the host first. A local job's worker table says
    `local1`, so its detail does too (it said `node1`, a name the job does not use)."""
    job_dir = _job_dir(tmp_path)
    nodes = [{"index": 0, "hostname": hosts[0], "ip": "10.0.0.17"}, {"index": 1, "hostname": hosts[1], "ip": "x"}]
    (job_dir / "endpoints.json").write_text(json.dumps({"version": 1, "job_id": job_id, "workers": [], "nodes": nodes}))
    snap = frozen.frozen_job(job_id, RECIPE, PROFILE, job_dir=job_dir)
    app = frozen_app([snap], open_job=job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await _open_first_worker(app, pilot)
        detail = app.screen
        assert isinstance(detail, WorkerDetail)
        heading = str(detail.query_one("#worker-detail-text").render()).splitlines()[0]
        host = hosts[detail.status.node_index]
        # the host (as sinfo and srun name it), then which of the job's nodes (`(plan node1)` read as another node)
        assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == [
            "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]  # fmt: skip
        assert f"on {host}, the job's {ordinal(detail.status.node_index + 1)} node" in heading, heading


async def test_y_copies_the_command_as_in_the_job_view_and_c_means_nothing_here(tmp_path: Path) -> None:
    """Operator pass (issue 21): `c` copied the command here and cancels the job one Esc away. `y` copies in both."""
    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=_job_dir(tmp_path))
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=(120, 36)) as pilot:
        await _open_first_worker(app, pilot)
        detail = app.screen
        assert isinstance(detail, WorkerDetail) and detail.facts is not None
        command = detail.facts.command
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is detail and app.clipboard == ""
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == command and command
        # the detail names the key that copies (it said `c copies it`)
        text = str(detail.query_one("#worker-detail-text").render())
        assert "(y copies it)" in text and "c copies" not in text


def test_the_detail_shows_the_addresses_the_job_wrote_not_their_placeholders(tmp_path: Path) -> None:
    """Operator pass (issue 21): the environment read `ETCD_ENDPOINTS=http://<ip:node0>:2379` while the URLs above
    it had real addresses. Once the job wrote endpoints.json, node addresses and host names are filled in."""
    from srt_tui.monitor.statuses.worker_facts import read_worker_facts

    job_dir = _job_dir(tmp_path)
    plan = json.loads((job_dir / "plan.json").read_text())
    proc = plan["processes"][0]
    proc["env"]["ETCD_ENDPOINTS"] = "http://<ip:node0>:2379"
    proc["command"] = [*proc["command"], "--dist-init-addr", "<ip:node0>:5000", "--name", "<host:node0>"]
    (job_dir / "plan.json").write_text(json.dumps(plan))
    before = read_worker_facts(job_dir, proc["name"])
    assert dict(before.env)["ETCD_ENDPOINTS"] == "http://<ip:node0>:2379"  # not known yet: said as planned
    nodes = [{"index": 0, "hostname": "gpu-017", "ip": "10.0.0.17"}]
    (job_dir / "endpoints.json").write_text(json.dumps({"version": 1, "workers": [], "nodes": nodes}))
    facts = read_worker_facts(job_dir, proc["name"])
    assert dict(facts.env)["ETCD_ENDPOINTS"] == "http://10.0.0.17:2379"
    assert "--dist-init-addr 10.0.0.17:5000 --name gpu-017" in facts.command
    assert dict(facts.env)["HF_TOKEN"] == "***"  # secrets stay masked


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_log_tail_wraps_under_its_indent_and_says_l_whole(tmp_path: Path, size: tuple[int, int]) -> None:
    """Operator pass (issue 21): long log lines wrapped back to column 0, and `(l` ended one line with `opens it)`
    on the next. Each log line wraps under its own start; the hint is whole on the heading."""
    from textual.geometry import Region

    job_dir = _job_dir(tmp_path)
    log = job_dir / frozen.plan_json(RECIPE, PROFILE)["processes"][0]["log"]
    log.write_text("ready\n" + "RuntimeError: " + "the engine could not allocate its KV cache " * 4 + "\n")
    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=job_dir)
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=size) as pilot:
        await _open_first_worker(app, pilot)
        detail = app.screen
        assert isinstance(detail, WorkerDetail)
        pane = detail.query_one("#worker-detail-log-text" if size[0] >= 110 else "#worker-detail-text")
        lines = [s.text.rstrip() for s in pane.render_lines(Region(0, 0, pane.size.width, pane.size.height))]
        head = next(i for i, line in enumerate(lines) if line.startswith("log  "))
        assert lines[head] == "log  (l opens it)", lines[head]
        tail = [line for line in lines[head + 1 :] if line.strip()]
        assert len(tail) > 3 and all(line.startswith("  ") for line in tail), tail  # the error wrapped, indented


async def test_an_ended_slurm_jobs_worker_offers_no_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Second operator pass (stop 29): `s` on a failed Slurm job's worker handed the terminal to an `srun` that
    failed, then said only `exit code 1`. An ended Slurm job holds no node: the detail offers no shell. Operator
    pass 9: `s` then did nothing at all; it says, as `srt-tui shell` does, that the job ended (its state, when) and
    what to read instead (`l`, its log)."""
    from dataclasses import replace

    job_dir = _job_dir(tmp_path)
    nodes = [{"index": 0, "hostname": "gpu-017", "ip": "10.0.0.17"}, {"index": 1, "hostname": "gpu-018", "ip": "x"}]
    (job_dir / "endpoints.json").write_text(
        json.dumps({"version": 1, "job_id": "81240", "workers": [], "nodes": nodes})
    )
    running = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=job_dir)
    ended = replace(running, stage="failed", slurm_state="FAILED", ended_at="2026-03-01T11:20:00Z")
    ran: list[object] = []

    def run_shell(app: object, shell: object) -> int:
        ran.append(shell)
        return 0

    monkeypatch.setattr(WorkerDetail, "run_shell", staticmethod(run_shell))
    for snap, offered in ((running, True), (ended, False)):
        app = frozen_app([snap], open_job="81240")
        async with app.run_test(size=(120, 36)) as pilot:
            await _open_first_worker(app, pilot)
            detail = app.screen
            assert isinstance(detail, WorkerDetail)
            assert (detail.active_bindings["s"].binding.action == "shell") is offered
            assert detail.active_bindings["s"].binding.show is offered  # the footer offers no shell
            text = str(detail.query_one("#worker-detail-text").render())
            assert ("(s opens it)" in text) is offered
            before = len(ran)
            await pilot.press("s")
            await pilot.pause()
            assert len(ran) == before + (1 if offered else 0)
            said = [str(n.message) for n in app._notifications]
            if not offered:
                at = datetime(2026, 3, 1, 11, 20, tzinfo=timezone.utc).astimezone()
                assert len(said) == 1 and said[0].startswith(f"job 81240 has ended (failed at {at:%Y-%m-%d %H:%M:%S}, ")
                assert said[0].endswith(" ago): it holds no node to open a shell on; l opens its log instead"), said


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_health_history_wraps_in_its_value_column(tmp_path: Path, size: tuple[int, int]) -> None:
    """Operator pass 7 (issue 21): a long health change wrapped to column 0, under the times, where it read as a
    line of its own. Each change's words wrap under its value, as the current health's do under `health`."""
    from textual.geometry import Region

    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=_job_dir(tmp_path))
    first = snap.workers[0]
    said = "connection refused: node0 answers on its other ports, so this worker is hung or still loading its weights"
    history = (HealthChange("2026-03-01T11:20:00Z", "unknown", "not listening yet (loading?)"),
               HealthChange("2026-03-01T11:21:07Z", "down", said))  # fmt: skip
    snap = replace(
        snap, workers=(replace(first, detail=said, health="down", health_history=history), *snap.workers[1:])
    )
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=size) as pilot:
        await _open_first_worker(app, pilot)
        pane = app.screen.query_one("#worker-detail-text")
        lines = [s.text.rstrip() for s in pane.render_lines(Region(0, 0, pane.size.width, pane.size.height))]
        head = next(i for i, line in enumerate(lines) if line.startswith("health  "))
        block = lines[head : lines.index("", head)]
        changes = [i for i, line in enumerate(block) if line.startswith("  2026-")]
        assert len(changes) == 2
        value_at = {0: len("health  "), **{i: len("  2026-03-01 11:20:00 UTC  ") for i in changes}}
        column = 0
        for i, line in enumerate(block):
            column = value_at.get(i, column)
            if i not in value_at:  # a wrapped line: under its value
                assert line[:column].strip() == "" and line[column] != " ", (column, block)
        assert len(block) > 4  # the long words did wrap (at 120 columns too)
        assert "weights" in block[changes[1] + 1] or "weights" in block[-1]


async def test_the_mask_wraps_in_its_value_column_at_80x24(tmp_path: Path) -> None:
    """New-operator pass (2026-12-07), 80x24: `mask  … not set by srt-tui (the whole node's GPUs)` wrapped `GPUs)`
    to column 0, where it read as a line of its own; it wraps under its value, as the health history does."""
    from textual.geometry import Region

    job_dir = _job_dir(tmp_path)
    plan = json.loads((job_dir / "plan.json").read_text())
    plan["visible_devices_env"] = "A_LAUNCHERS_OWN_VISIBLE_DEVICES"  # longer than ROCR's: the line wraps at 80
    (job_dir / "plan.json").write_text(json.dumps(plan))
    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=job_dir)
    snap = replace(snap, workers=(replace(snap.workers[0], mask=""), *snap.workers[1:]))
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_first_worker(app, pilot)
        pane = app.screen.query_one("#worker-detail-text")
        assert len("mask  A_LAUNCHERS_OWN_VISIBLE_DEVICES not set by srt-tui (the whole node's GPUs)") > pane.size.width
        lines = [s.text.rstrip() for s in pane.render_lines(Region(0, 0, pane.size.width, pane.size.height))]
        head = next(i for i, line in enumerate(lines) if line.startswith("mask  "))
        assert "not set by srt-tui" in lines[head], lines
        assert lines[head + 1].startswith(" " * len("mask  ")) and "GPUs)" in lines[head + 1], lines[head : head + 2]
