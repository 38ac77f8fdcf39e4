"""Assemble a JobSnapshot from a job's files, its Slurm state and what its HTTP sources answered
(workers, router, GPU exporters)."""

from __future__ import annotations

import os
from pathlib import Path

from srt_tui.core.jobdir.contract import PlanDoc
from srt_tui.core.jobdir.discovery import SRTCTL
from srt_tui.core.plan.document import PlanProcess
from srt_tui.core.results.progress import PROGRESS_FILE, BenchProgress, parse_progress
from srt_tui.monitor.files.jobfiles import error_line, tail
from srt_tui.monitor.files.log_tail import strip_ansi
from srt_tui.monitor.model import (
    FINAL_STAGES,
    READY_STAGES,
    JobSnapshot,
    LogRef,
    Placement,
    RouterStatus,
    SourceState,
    WorkerStatus,
    iso_utc,
)
from srt_tui.monitor.probes.sources import Source
from srt_tui.monitor.statuses.context import JobFiles, Refresh
from srt_tui.monitor.statuses.gpus import gpu_status
from srt_tui.monitor.statuses.relay import read_relay
from srt_tui.monitor.statuses.router import nginx_behind, nginx_status, router_status, with_router_view
from srt_tui.monitor.statuses.serving import client_ttft_added, job_figures, pd_flow, router_parts_key
from srt_tui.monitor.statuses.srtctl_dir import srtctl_logs
from srt_tui.monitor.statuses.stage import StepExit, derive_stage, ended_at, seen_ready, started_at, step_exit
from srt_tui.monitor.statuses.workers import worker_statuses
from srt_tui.slurm.client import JobState
from srt_tui.slurm.identity import foreign_job
from srt_tui.slurm.local import is_local_job

#: roles whose workers answer the client (a P/D request is counted by both its prefill and its decode)
SERVING_ROLES = ("decode", "agg")


def build_snapshot(ctx: Refresh, job: JobFiles, state: JobState | None, sched: SourceState) -> JobSnapshot:
    """One job's snapshot; ``sched`` is the state of its scheduler source (slurm or local)."""
    # (Slurm jobs in srt-tui's own directories: srtctl's job.json-less ones name the job after its config, and the
    # local launcher's records are this machine's own)
    checked = job.written_by != SRTCTL and not is_local_job(job.job_id)
    if state is not None and checked and (foreign := foreign_job(state, job.meta.name, job.meta.submitted_at)):
        # Slurm answers for this number with another job (a reused id, another cluster's SLURM_CONF): its state is
        # not this job's, so it is said and left out, as when Slurm does not answer
        sched, state = SourceState(sched.name, False, foreign), None
    stage, stage_time, detail = derive_stage(job.events, state, job.cancel)
    final = stage in FINAL_STAGES
    plan, meta = job.plan, job.meta
    gpus_per_node = plan.gpus_per_node or meta.gpus_per_node
    sources = [sched, SourceState("job dir", not job.problems, "; ".join(job.problems))]
    live = job.endpoints is not None and not final
    relay = read_relay(ctx.files, job.dir, ctx.wall(), ctx.relay_fresh_s) if live else None
    starting = stage not in READY_STAGES
    job_end = ended_at(job.events, state, final)
    workers, worker_relay, problems = worker_statuses(ctx, job, live, final, relay, starting, job_end)
    router, router_relay, router_problem = router_status(ctx, job, live, relay, starting, final=final)
    if router_problem:
        problems.append(router_problem)
    routers: tuple[RouterStatus, ...] = ()
    nginx, nginx_problem = nginx_status(ctx, job, live, starting)
    if nginx is not None:  # srtctl's multi-frontend layout: every router behind nginx
        views = job.router_views()
        more = [router_status(ctx, job, live, relay, starting, view) for view in views[1:]]
        routers = tuple(r for r in (router, *(m[0] for m in more)) if r is not None)
        nginx, nginx_problem = nginx_behind(nginx, nginx_problem, routers)
        problems += [p for _, _, p in more if p] + ([nginx_problem] if nginx_problem else [])
    if live:
        sources.append(source_state(ctx, "http", [ctx.sources.get(k) for k in job.source_keys()], problems))
    gpus = gpu_status(ctx, job, gpus_per_node, starting) if live else None
    if gpus is not None:
        sources.append(source_state(ctx, "gpu exporter", gpus.sources, gpus.problems))
    # the job is shown relayed when its nodes do not answer from here: when one of its processes does, a worker
    # that does not is its own problem (hung, or its one node cut off: that row alone is relayed), not the job's
    reached = live and any(ctx.answered_now(ctx.sources.get(k)) for k in job.source_keys())
    relayed = (worker_relay or router_relay) and not reached
    if relayed and relay is not None:
        sources = [relayed_http_state(s, relay.age_s) if s.name == "http" else s for s in sources]
    if (worker_relay or router_relay) and relay is not None:
        sources.append(SourceState("relay", True, "", relay.age_s))
    refused = [p for p in ctx.files.refused(job.dir) if p not in job.problems]
    if refused:  # a device, pipe or oversized file where a job file belongs: named, never read
        said = "; ".join((*job.problems, *refused))
        sources = [SourceState("job dir", False, said) if s.name == "job dir" else s for s in sources]
    workers = with_router_view(workers, router)
    own_stage = stage
    seen = seen_ready(stage, routers or ((router,) if router is not None else ()), nginx) if live else None
    if seen is not None:
        stage, detail = seen  # the Monitor's own probes are a poll ahead of the job's wait (`seen_ready`)
    if stage == "workers healthy" and live:  # the count as this snapshot's worker table shows it
        detail = healthy_count(workers, detail)
    requests, errors, rate = job_totals(workers, router, routers)
    served, served_errors = requests, errors  # the deployment's, whatever its benchmark measured
    requests_from = ""
    if final:
        requests, errors, requests_from = final_totals(ctx, job, requests, errors)
    failure_log = detail.rsplit("log:", 1)[1].strip() if stage == "failed" and "log:" in detail else ""
    logs = log_refs(job)
    last = failing_tail(failure_log, logs) if failure_log else []
    said = error_line(last)
    ended = step_exit(job.events)
    unwritten = bool(failure_log) and never_written(failure_log, logs)
    srun = srun_lines(ended.name, logs) if unwritten and ended is not None else ()
    if unwritten:  # srun never started the step: its own lines say why, not the log it never wrote
        note = unwritten_note(ended, srun, job.dir, logs)
    else:
        note = failure_note(ended, bool(said)) if failure_log else ""
    return JobSnapshot(
        job_id=job.job_id,
        job_dir=str(job.dir),
        name=meta.name or plan.name,
        profile=meta.profile or plan.profile,
        topology=plan.topology or meta.topology,
        launcher=meta.launcher,
        slurm_state=state.state if state else "UNKNOWN",
        slurm_reason=state.reason_worth_showing if state else "",
        stage=stage,
        stage_time=stage_time,
        stage_detail=detail,
        workers=workers,
        router=router,
        sources=tuple(sources),
        submitted_at=meta.submitted_at,
        relayed=relayed,
        failure_log=failure_log,
        failure_line=said,
        failure_tail=tuple(last[-FAILURE_TAIL_LINES:]),
        failure_note=note,
        failure_log_missing=unwritten,
        failure_srun=srun,
        time_limit_s=state.time_limit * 60.0 if state and state.time_limit else None,
        engine=plan.engine or meta.engine,
        frontend=plan.frontend or meta.frontend,
        nodes=plan.nodes or meta.nodes,
        gpus_per_node=gpus_per_node,
        visible_devices_env=plan.visible_devices_env,
        started_at=started_at(job.events, state),
        expected_start_at=iso_utc(state.expected_start) if state and state.expected_start else "",
        ended_at=job_end,
        placements=placements(plan),
        logs=logs,
        requests=requests,
        requests_from=requests_from,
        served=served,
        served_errors=served_errors,
        errors=errors,
        rate_per_s=rate,
        serving=job_figures(
            ctx.serving_parts.get(job.job_id, []),
            ctx.serving_parts.get(router_parts_key(job.job_id), []),
            pd_flow(plan),
            client_ttft_added(plan),
        ),
        gpus=gpus.readings if gpus is not None else (),
        routers=routers,
        nginx=nginx,
        bench=bench_progress(ctx, job, stage, final),
        group=meta.group or "",
        group_member=meta.group_member or "",
        hostnames=hostnames(job, state),
        own_stage=own_stage if seen is not None else "",
    )


def healthy_count(workers: tuple[WorkerStatus, ...], said: str) -> str:
    """`2/2` workers healthy as this snapshot's own probes found them, so the stage and the worker table never
    disagree: the job's health gate writes its count at its own interval (`workers healthy 0/2` stayed a refresh
    or more after the table showed both healthy). The job's word ``said`` until a worker's health is known."""
    if not workers or all(w.health == "unknown" for w in workers):
        return said
    return f"{sum(w.health == 'healthy' for w in workers)}/{len(workers)}"


def hostnames(job: JobFiles, state: JobState | None) -> tuple[str, ...]:
    """The nodes' host names: as the job wrote them in endpoints.json, else (before it did) Slurm's node list,
    which is in the same order (the batch script numbers nodes as `scontrol show hostnames` lists them)."""
    written = job.endpoints.hostnames() if job.endpoints is not None else ()
    return written if any(written) else (state.nodes if state is not None else ())


def bench_progress(ctx: Refresh, job: JobFiles, stage: str, final: bool) -> BenchProgress | None:
    """A running benchmark's progress: the job's own sa-bench step, or load sent to a serving job by a
    client that keeps the same file (`srt_tui.mock bench --progress-dir <job>/logs`) until it is done."""
    if final or stage not in ("benchmark", "serving"):
        return None
    progress = parse_progress(ctx.files.json(job.dir / PROGRESS_FILE, "progress"))
    if progress is None or (stage == "serving" and progress.phase == "done"):
        return None
    return progress


def source_state(ctx: Refresh, name: str, srcs: list[Source], problems: list[str]) -> SourceState:
    """One line for a group of HTTP probes (a job's workers and router, its GPU exporters): ok, or the
    first problems with the retry time."""
    failing = [s for s in srcs if s.kind or ctx.hanging(s)]
    ages = [a for a in (s.age(ctx.now) for s in failing) if a is not None]
    retry = [max(0.0, s.next_at - ctx.now) for s in failing if s.kind and s.task is None]
    error = "; ".join(problems[:3]) + (f" (+{len(problems) - 3} more)" if len(problems) > 3 else "")
    return SourceState(
        name,
        not problems,
        error,
        (max(ages) if ages else None) if failing else 0.0,
        min(retry) if retry else None,
    )


def relayed_http_state(http: SourceState, age_s: float) -> SourceState:
    """The HTTP source of a view the job relays: not ok (the nodes do not answer from here), saying so."""
    said = f"relayed: the nodes do not answer from here; shown from the job's relay ({age_s:.0f} s old)"
    return SourceState("http", False, said + (f"; {http.error}" if http.error else ""), age_s, http.retry_in_s)


def job_totals(
    workers: tuple[WorkerStatus, ...], router: RouterStatus | None, routers: tuple[RouterStatus, ...] = ()
) -> tuple[float | None, float | None, float | None]:
    """(requests, errors, req/s) as the client sees them: the routers' counters when they have them
    (summed over the routers behind nginx), else the serving workers' (decode/agg; prefill legs would
    count each P/D request twice)."""
    serving = [w for w in workers if w.role in SERVING_ROLES] or list(workers)
    totals = [w.requests_total for w in serving if w.requests_total is not None]
    failed = [w.requests_failed for w in workers if w.requests_failed is not None]
    rates = [w.rate_per_s for w in serving if w.rate_per_s is not None]
    requests = sum(totals) if totals else None
    errors = sum(failed) if failed else None
    counted = [r for r in (routers or ((router,) if router is not None else ())) if r.requests is not None]
    if counted:
        requests = sum(r.requests or 0.0 for r in counted)
    failing = [r.errors for r in (routers or ((router,) if router is not None else ())) if r.errors is not None]
    if failing:
        errors = sum(failing)
    return requests, errors, (sum(rates) if rates else None)


def final_totals(
    ctx: Refresh, job: JobFiles, requests: float | None, errors: float | None
) -> tuple[float | None, float | None, str]:
    """An ended job's (requests, errors, whose): its benchmark's measured requests (completed + failed) and
    failures when it wrote results ("benchmark"), else the last counters observed (kept by the monitor's
    history; "last seen"), else unknown ("")."""
    totals = ctx.files.results(job.dir).totals()
    if totals is not None:
        return float(totals[0] + totals[1]), float(totals[1]), "benchmark"
    return requests, errors, "last seen" if requests is not None else ""


def placements(plan: PlanDoc) -> tuple[Placement, ...]:
    """Every worker process (all ranks) with its node, GPUs, mask and port, for the GPU grid."""
    out = []
    for p in plan.processes:
        out.append(
            Placement(
                name=p.name,
                worker=p.worker or p.name,
                role=p.role,
                node_index=p.node_index,
                gpus=p.gpus,
                mask=p.visible_devices,
                port=p.port,
            )
        )
    return tuple(out)


def failing_ref(failure_log: str, logs: tuple[LogRef, ...]) -> LogRef | None:
    """The log that failed the job among the job's logs: the same path, or (written from inside a node's
    mount) the same file name."""
    same = next((ref for ref in logs if ref.path == failure_log), None)
    name = failure_log.rsplit("/", 1)[-1]
    return same or next((ref for ref in logs if ref.path.rsplit("/", 1)[-1] == name), None)


#: the failing log's last lines a snapshot keeps (`JobSnapshot.failure_tail`), as many as a worker's Problems rows
FAILURE_TAIL_LINES = 3


def failing_tail(failure_log: str, logs: tuple[LogRef, ...]) -> list[str]:
    """The failing log's last 50 lines as plain text, where the one line that says why is looked for
    (`error_line`: its last line that explains a failure, error, traceback or exit text: `setsid: failed to execute
    nats-server: No such file or directory`; none when it has none: a worker killed by SIGKILL writes nothing, and
    its last line, `ready: agg_1 serving …`, was quoted as the reason). Read from the log's last 64 KiB only, by the
    Monitor's refresh (never the TUI's loop); the job view's Problems panel and `srt-tui status` show it."""
    ref = failing_ref(failure_log, logs)
    return [strip_ansi(line).strip() for line in tail(Path(ref.path), 50)] if ref is not None else []


#: the end of the job's Slurm output read for srun's words about a step (the cleanup's own srun lines, two per step
#: stopped, come after them: 200 steps write ~40 KB)
SRUN_TAIL_BYTES = 256 * 1024
#: the most of srun's lines quoted for one step (an MPI plugin that does not load: five)
SRUN_LINES = 6


def never_written(failure_log: str, logs: tuple[LogRef, ...]) -> bool:
    """The failing step's log does not exist: srun refused the step (a node, GPUs or memory the allocation lacks,
    an `--mpi` plugin that does not load, a container option with no runtime), so nothing ever opened its
    `--output`."""
    ref = failing_ref(failure_log, logs)
    return ref is not None and not os.path.lexists(ref.path)


def srun_lines(name: str, logs: tuple[LogRef, ...]) -> tuple[str, ...]:
    """srun's own lines about step ``name`` in the job's Slurm output (`logs/slurm.log`, the sbatch `--output`):
    the launch script prefixes each step's srun messages with its name (`router: srun: error: Unable to create
    step for job 12: …`), so another step's are never quoted. Read from the output's last 256 KiB only, by the
    Monitor's refresh (an ended job's snapshot is kept: read once)."""
    launch = next((ref for ref in logs if ref.kind == "job"), None)
    if launch is None:
        return ()
    mine = f"{name}: srun: "
    found: list[str] = []
    for line in tail(Path(launch.path), 4000, SRUN_TAIL_BYTES):
        plain = strip_ansi(line).strip()[:300]
        if plain.startswith(mine) and plain not in found:
            found.append(plain)
    return tuple(found[:SRUN_LINES])


def unwritten_note(ended: StepExit | None, srun: tuple[str, ...], job_dir: Path, logs: tuple[LogRef, ...]) -> str:
    """Said where the failing log's line would be when that log was never written: srun did not start the step,
    and its own lines (``srun``) follow this one, from the job's Slurm output, named relative to the job
    directory (`its step never started, so it wrote no log; logs/slurm.log:`)."""
    launch = next((ref for ref in logs if ref.kind == "job"), None)
    where = launch.path if launch is not None else "the job's Slurm output"
    if launch is not None and Path(launch.path).is_relative_to(job_dir):
        where = str(Path(launch.path).relative_to(job_dir))
    if srun:
        return f"its step never started, so it wrote no log; {where}:"
    code = f" (srun exited with code {ended.code})" if ended is not None else ""
    return f"its log was never written{code}, and {where} has no srun line about its step"


def failure_note(ended: StepExit | None, logged: bool) -> str:
    """What the job recorded of the step's end, said before the failing log's line (``logged``: it has one): a
    signal always (`it was killed by signal 9 (SIGKILL: …); its log's last error line:`), an exit of its own only
    when the log explains nothing (`no error in its log; it exited with code 2`; `StepExit.reason`)."""
    if ended is None:
        return "" if logged else "no error in its log"
    return ended.reason(logged)


def log_refs(job: JobFiles) -> tuple[LogRef, ...]:
    """Every process's log (workers, infra, router, benchmark) and the launch script's own output."""
    if job.written_by == SRTCTL:
        return srtctl_logs(job.job_id, job.dir)
    plan = job.plan
    out: list[LogRef] = []
    for group, procs in (("processes", plan.processes), ("infra", plan.infra)):
        for p in procs:
            if p.log:
                out.append(LogRef(p.name, p.kind or group, str(job.dir / p.log)))
    entries: list[tuple[str, PlanProcess | None]] = [
        *(("router", r.process) for r in plan.all_routers()),
        ("nginx", plan.nginx.process if plan.nginx else None),
        ("benchmark", plan.benchmark),
    ]
    for key, entry in entries:
        if entry is not None and entry.log:
            out.append(LogRef(entry.name or key, key, str(job.dir / entry.log)))
    launch = "launch.log" if is_local_job(job.job_id) else "slurm.log"
    out.append(LogRef("launch", "job", str(job.dir / "logs" / launch)))
    return tuple(out)
