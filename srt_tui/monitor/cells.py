"""Plain-text cells of a snapshot, shared by `srt-tui status` and the TUI's tables (no styling here)."""

from __future__ import annotations

from datetime import datetime

from srt_tui.core.isotime import parse_time
from srt_tui.core.text.counts import counted
from srt_tui.monitor.model import (
    JOB_ENDED,
    QUANTILES,
    ROLE_LETTERS,
    STAGE_SHORT,
    GpuReading,
    JobSnapshot,
    Latency,
    LatencyFamily,
    Quantile,
    RouterStatus,
    Serving,
    WorkerStatus,
    starts_in_s,
    time_left_s,
)
from srt_tui.monitor.role_health import DEGRADED, stage_words
from srt_tui.slurm.local import is_local_job

SPARK_CHARS = "▁▂▃▄▅▆▇█"
_ROLE_ORDER = {"prefill": 0, "decode": 1, "agg": 2}


def healthy_cell(snap: JobSnapshot) -> str:
    """`P1/1 D2/2`, healthy over total workers per role, written as ROUTER's registrations beside it are (the
    wide table's `P 1/1  D 2/2` next to `P1/1 D2/2` read as two notations); `-` while it waits in the queue or
    its script has not started (no worker exists yet: `P0/1` read as one that failed) and once the job ended."""
    if snap.is_final or not_started(snap):
        return "-"
    counts = sorted(snap.healthy_counts().items(), key=lambda kv: _ROLE_ORDER.get(kv[0], 9))
    return " ".join(f"{ROLE_LETTERS.get(r, r)}{h}/{t}" for r, (h, t) in counts) or "-"


#: how a worker that stopped with its ended job is said, now and in its history: `ended` (its `down` is no fault)
STOPPED_WITH_JOB = ("ended", "with the job")


def health_words(health: str, detail: str, stopped: bool) -> tuple[str, str]:
    """A worker's health and its detail as shown, now and in its history (the worker detail, the Events view): one
    that ``stopped`` with its ended job (`JobSnapshot.stopped_with_job`), seen `down` for that alone, reads `ended
    with the job` (the detail said `health ended  the job has ended` over its history's `down  the job has ended`,
    and the workers table says `ended`); anything else as it was seen."""
    if stopped and health == "down" and detail.startswith(JOB_ENDED):
        return STOPPED_WITH_JOB[0], STOPPED_WITH_JOB[1] + detail.removeprefix(JOB_ENDED)
    return health, detail


def not_started(snap: JobSnapshot) -> bool:
    """Queued, or its script has not run yet: no worker or router exists, so their cells read `-`, not `?`."""
    return snap.stage in ("pending", "submitted")


def registrations_cell(snap: JobSnapshot) -> str:
    """The ROUTER column of the Monitor's tables: `registered_cell`, or `-` when no router exists (not started
    yet, or ended: the ended job's last registrations are in its job view)."""
    return "-" if snap.is_final or (not_started(snap) and snap.router is not None) else registered_cell(snap.router)


def registered_cell(router: RouterStatus | None) -> str:
    """`1/1 2/2` registered over expected per role, `down`, `hung`, `?` (unknown) or `direct` (no router)."""
    if router is None:
        return "direct"
    if router.up is False:
        return router.state
    if router.up is None:
        return "?" if not router.registered else _registered(router)
    if router.registration not in ("router-workers", "dynamo-health"):
        return "up"
    return _registered(router)


def _registered(router: RouterStatus) -> str:
    items = sorted(router.expected.items(), key=lambda kv: _ROLE_ORDER.get(kv[0], 9))
    return " ".join(f"{ROLE_LETTERS.get(k, k)}{router.registered.get(k, 0)}/{v}" for k, v in items) or "up"


def router_cell(snap: JobSnapshot) -> str:
    """`up P1/1 D2/2`, `down`, or `direct` — the router's state and registrations in one cell (an ended
    job: `ended` and the registrations it had last)."""
    r = snap.router
    if r is None:
        return "direct"
    if not_started(snap):  # queued: no router runs yet (`?` read as one that does not answer)
        return "-"
    state = "ended" if snap.is_final else r.state if r.up is not None else "?"
    if snap.routers and (off := [x for x in snap.routers if x.up is False]):
        state = off[0].state
    reg = registered_cell(r)
    cell = state if reg in ("up", "down", "hung", "?") else f"{state} {reg}"
    return cell + (f" ×{len(snap.routers)}" if len(snap.routers) > 1 else "")


def number(value: float | None) -> str:
    """A counter: `-` when unknown, `12`, `1.2k`, `3.4M`."""
    if value is None:
        return "-"
    if value < 1000:
        return f"{value:.0f}"
    if value < 1_000_000:
        return f"{value / 1000:.1f}k"
    return f"{value / 1_000_000:.1f}M"


def rate(value: float | None) -> str:
    """Requests per second: `-`, `0`, `0.4`, `12`, `1.2k`."""
    if value is None:
        return "-"
    if value == 0:
        return "0"
    if value < 10:
        return f"{value:.1f}"
    return number(value)


def duration(seconds: float | None) -> str:
    """`42s`, `3m05s`, `2h04m`, `3d02h`."""
    if seconds is None:
        return "-"
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def ago(seconds: float) -> str:
    """How long ago something happened, as an operator says it: `just now`, `40 s ago`, `2 min ago`, `3 h ago`,
    `2 d ago`."""
    s = max(0, int(seconds))
    if s < 10:
        return "just now"
    if s < 60:
        return f"{s} s ago"
    if s < 3600:
        return f"{s // 60} min ago"
    return f"{s // 3600} h ago" if s < 86400 else f"{s // 86400} d ago"


def elapsed(snap: JobSnapshot, now: datetime) -> str:
    """How long the job has run (until it ended), or while it waits to start how long it has waited, `queued 2m10s`:
    the jobs list's ELAPSED, `status`'s and the job view's, one derivation (the list and `status` said `-` for a
    queued job the job view said `queued 32s` of); `-` for a job that never ran (cancelled in the queue)."""
    queued = snap.queued_s(now) if snap.elapsed_s(now) is None else None
    return f"queued {duration(queued)}" if queued is not None else duration(snap.elapsed_s(now))


#: a queued job's wait where `queued 7m30s` is too wide: `q 7m30s`, as wide as the ELAPSED header at most
QUEUED_SHORT = "q "


def waited(snap: JobSnapshot, now: datetime) -> str:
    """How long a queued job has waited, in a column too narrow for `queued 7m30s` (the jobs list's ELAPSED,
    `status`'s narrowed one): `q 7m30s`, no wider than `ELAPSED` (the figure alone, dimmed, read as a run time with
    nothing saying it was time queued); "" for any other job."""
    said = elapsed(snap, now)
    return QUEUED_SHORT + said.removeprefix("queued ") if said.startswith("queued ") else ""


def elapsed_words(snap: JobSnapshot, now: datetime) -> str:
    """`elapsed 3m05s`, or `queued 2m10s` while it waits (`elapsed` named, for the job view's counters)."""
    said = elapsed(snap, now)
    return said if said.startswith("queued ") else f"elapsed {said}"


#: warn when less than this share of the time limit is left, or less than LEFT_WARN_S
LEFT_WARN_SHARE = 0.1
LEFT_WARN_S = 600.0


def time_left(snap: JobSnapshot, now: datetime) -> tuple[str, bool]:
    """`1h02m left` against the job's time limit, and whether to warn (under 10 % or 10 minutes); ('', False)
    without a limit."""
    left = time_left_s(snap, now)
    if left is None or snap.time_limit_s is None:
        return "", False
    warn = left < max(LEFT_WARN_S, LEFT_WARN_SHARE * snap.time_limit_s)
    return f"{duration(max(0.0, left))} left of {duration(snap.time_limit_s)}", warn


def state_cell(snap: JobSnapshot, short: bool = False) -> str:
    """The scheduler's state of the job: Slurm's as it is (`RUNNING`), another launcher's named (`local RUNNING`);
    ``short`` (a narrow table): the state alone where the job's id already names its launcher (`local-12`), so
    `local CANCELLED` does not push ELAPSED out at 80 columns."""
    launcher = snap.launcher.lower()
    if launcher in ("", "slurm") or (short and snap.job_id.lower().startswith(f"{launcher}-")):
        return snap.slurm_state
    return f"{launcher} {snap.slurm_state}"


def stage_cell(snap: JobSnapshot, short: bool = False, said: bool = True) -> str:
    """The stage, with `(relayed)` when health came from the job's own relay, and the benchmark's progress
    while it runs (step, requests done of total, ETA); ``short``: the stage in one word (`STAGE_SHORT`).

    A ready job with a role that has no healthy worker cannot serve: `degraded · no healthy decode worker (2 hung)`;
    one with some of a role's workers not serving says so after its stage: `serving · 1/2 decode workers healthy
    (1 hung)` (`role_health`). ``short`` or not ``said`` (the jobs list, whose ▲ and HEALTHY say the rest): the
    stage word alone, `degraded`."""
    word, shortfall = stage_words(snap)
    stage = STAGE_SHORT.get(word, word) if short else word
    progress = f" {snap.bench.text()}" if snap.bench is not None else ""
    if snap.stage == "workers healthy" and snap.stage_detail:  # `0/2` while they come up: not yet healthy
        progress = f" {snap.stage_detail}"
    relayed = " (relayed)" if snap.relayed else ""
    if not shortfall or short or not said:
        return (stage if word == DEGRADED else stage + progress) + relayed
    if word == DEGRADED:
        was = f" · {snap.stage}{progress}" if progress else ""
        return f"{word} · {shortfall}{was}{relayed}"
    return f"{stage}{progress} · {shortfall}{relayed}"


def list_stage(snap: JobSnapshot, now: datetime | None = None) -> str:
    """The stage of a `status` row: a pending job's wait with it, `pending (Priority)`, which only the job view
    said (the jobs table, whose STATE column says PENDING, shows the reason alone: `jobs_model._stage`), and
    with ``now`` Slurm's estimate of its start, `pending (Resources, Slurm estimates start in ~12m)`."""
    stage = stage_cell(snap)
    if snap.stage != "pending":
        return stage
    expected = starts_in(snap, now) if now is not None else ""
    wait = ", ".join(w for w in (snap.slurm_reason, expected) if w)
    return f"{stage} ({wait})" if wait else stage


def starts_in(snap: JobSnapshot, now: datetime) -> str:
    """`Slurm estimates start in ~12m`: when Slurm's scheduler expects to start a queued job, said as its estimate
    (`squeue --start`; `starts in ~12m05s` read as a fact); "" when Slurm made none (`status` and the job view; the
    jobs table's narrow column says `est. ~12m`)."""
    left = starts_in_s(snap, now)
    return f"Slurm estimates start in {estimate(left)}" if left is not None else ""


def queued_wait(snap: JobSnapshot, now: datetime, width: int) -> str:
    """A queued job's wait in ``width`` columns (a table's STAGE: the jobs table's, `status`'s narrowed one): its reason
    and Slurm's estimate of its start said as one, `Resources, est. ~10m`, else the estimate alone, `Slurm est. ~10m`,
    `est. ~10m` (the reason is in the job view and under `status`'s table); the reason alone when Slurm made none."""
    left = starts_in_s(snap, now)
    if left is None:
        return snap.slurm_reason
    said = f"est. {estimate(left)}"
    both, alone = f"{snap.slurm_reason}, {said}", f"Slurm {said}"
    return both if snap.slurm_reason and len(both) <= width else alone if len(alone) <= width else said


def estimate(seconds: float) -> str:
    """Slurm's estimate of a wait, to the minute: `~12m`, `~3h59m`, `~1d02h`. Its scheduler revises it at every
    backfill cycle (30 s by default), so a countdown in seconds (`~9m51s`, `~9m50s` …) was precision it does not
    have."""
    if seconds < 3600:
        return f"~{max(1, round(seconds / 60))}m"
    return f"~{duration(seconds)}"


def ended(snap: JobSnapshot, now: datetime) -> str:
    """`job 7 has ended (completed at 2026-03-01 12:03:05, 4m10s ago)`, local time: what an action that needs a
    running job says of one that has ended (`bench` and `b` refuse it so, `shell` and `s` too); "" while it runs."""
    if not snap.is_final:
        return ""
    end = parse_time(snap.ended_at)
    if end is None:
        return f"job {snap.job_id} has ended ({snap.stage})"
    ago = duration(max(0.0, ((now if now.tzinfo else now.astimezone()) - end).total_seconds()))
    return f"job {snap.job_id} has ended ({snap.stage} at {end.astimezone():%Y-%m-%d %H:%M:%S}, {ago} ago)"


def no_shell(snap: JobSnapshot, now: datetime) -> str:
    """Why no shell can open on the job's nodes: it has ended on Slurm, so srun cannot join it (`srt-tui shell` and
    the worker detail's `s` refuse it so, before srun's `job 7 has expired`); a local job's shell is its directory,
    which outlives it. "" when a shell can open."""
    said = "" if is_local_job(snap.job_id) else ended(snap, now)
    return f"{said}: it holds no node to open a shell on" if said else ""


def files_problem(snap: JobSnapshot) -> str:
    """What is wrong with the job's files (job.json, plan.json, endpoints.json), empty when nothing is."""
    return next((s.error for s in snap.sources if s.name == "job dir" and not s.ok), "")


#: the least full scale of a latency sparkline (s) and of a rate's (per s): below it a line reads low, not full height
#: (an operator saw `TTFT mean 0.0 ms` drawn as full bars: 40 µs scaled to its own maximum)
SPARK_FLOOR_LATENCY_S = 0.001
SPARK_FLOOR_RATE = 1.0


def sparkline(values: tuple[float | None, ...], width: int = 12, floor: float = 0.0) -> str:
    """The last ``width`` values as block characters, scaled to their maximum or ``floor`` if higher ("" when no
    data). One meaning per glyph, in every sparkline (the Serving panel's, TREND): a blank is a slot with no reading
    (None: nothing was read then, a gap); `▁` a reading of zero (idle: no request, no token); a reading above zero
    draws `▂` or higher, never the idle `▁` (a rate of 1 beside 100 read as idle)."""
    tail = values[-width:]
    if not tail:
        return ""
    top = max(floor, max((v for v in tail if v is not None), default=0.0))
    last = len(SPARK_CHARS) - 1

    def bar(v: float | None) -> str:
        if v is None:
            return " "
        if v <= 0 or top <= 0:
            return SPARK_CHARS[0]
        return SPARK_CHARS[max(1, min(last, int(v / top * last + 0.5)))]

    return "".join(bar(v) for v in tail)


def worker_counts(w: WorkerStatus) -> str:
    """`ok/failed` requests of one worker."""
    return f"{number(w.requests_ok)}/{number(w.requests_failed)}"


def gpus(g: tuple[int, ...]) -> str:
    """`0-3` for contiguous GPUs, `0,2` otherwise, `-` for none."""
    if not g:
        return "-"
    if len(g) > 1 and list(g) == list(range(g[0], g[-1] + 1)):
        return f"{g[0]}-{g[-1]}"
    return ",".join(str(x) for x in g)


def util(reading: GpuReading | None) -> str:
    """A GPU's utilisation for its grid cell: `37` (%), `?` when its exporter did not answer this
    refresh, `-` when the exporter does not report it."""
    if reading is not None and reading.stale:
        return "?"
    if reading is None or reading.util is None:
        return "-"
    return f"{reading.util:.0f}"


def gpu_load(readings: tuple[GpuReading, ...] | list[GpuReading]) -> str:
    """A job's GPUs at a glance: `62% avg` over the fresh utilisation readings ('-' without any)."""
    values = [r.util for r in readings if not r.stale and r.util is not None]
    return f"{sum(values) / len(values):.0f}% avg" if values else "-"


def gpu_totals(readings: list[GpuReading], compact: bool = False, temperature: bool = True) -> str:
    """`2.9 kW · 64°C max`: a node's power draw and its hottest GPU, from fresh readings ('' without any);
    ``compact`` (narrow terminals): `2.9kW 64°C`; without ``temperature``: the power alone."""
    fresh = [r for r in readings if not r.stale]
    power = [r.power_w for r in fresh if r.power_w is not None]
    temps = [r.temp_c for r in fresh if r.temp_c is not None] if temperature else []
    parts = []
    if power:
        total = sum(power)
        parts.append(f"{total / 1000:.1f} kW" if total >= 1000 else f"{total:.0f} W")
    if temps:
        parts.append(f"{max(temps):.0f}°C max")
    if compact:
        return " ".join(p.replace(" kW", "kW").replace(" W", "W").removesuffix(" max") for p in parts)
    return " · ".join(parts)


def gpu_totals_forms(readings: list[GpuReading], wide: bool) -> list[str]:
    """A node's totals in the room they get, longest first, each reading whole with its unit: the long form (``wide``
    only), the compact one, then without the least important reading, the hottest GPU's temperature (the cells say
    the load; the power says whether the GPUs do real work), then nothing ("")."""
    forms = [gpu_totals(readings)] if wide else []
    forms += [gpu_totals(readings, compact=True), gpu_totals(readings, compact=True, temperature=False), ""]
    return list(dict.fromkeys(forms))


def failure_why(snap: JobSnapshot) -> list[str]:
    """What says why the failing step ended: its log's line (`main.py: error: unrecognized arguments: --bogus`), after
    the signal that killed it when the job recorded one (`it was killed by signal 9 (SIGKILL: …); its log's last
    error line:`: a kill is the reason, whatever the log said last), or, when that log explains nothing, what the
    job knows instead (`no error in its log; it was killed by signal 9 (SIGKILL: …)`), or, when srun never started
    the step (its log was never written), srun's own lines from the job's Slurm output under a line that says so
    (`its step never started, so it wrote no log; logs/slurm.log:`, `router: srun: error: Unable to create step for
    job 12: …`). The job view's Problems panel and `status` show these same lines."""
    said = [snap.failure_note] if snap.failure_note else []
    return [*said, snap.failure_line] if snap.failure_line else [*said, *snap.failure_srun]


def failure_lines(snap: JobSnapshot) -> list[str]:
    """A failed job's `failure_why` lines, indented to go under the failure's sentence, which names the step and
    its log; empty for any other job. `srt-tui status` and `srt-tui wait` print them."""
    return [f"  {said}" for said in failure_why(snap)] if snap.stage == "failed" else []


def problems(
    snap: JobSnapshot, with_log: bool = True, skip_sources: frozenset[str] = frozenset(), with_stage: bool = True
) -> list[str]:
    """Operator-facing lines for what is wrong with a job (empty when all is well); ``with_log`` adds
    each unhealthy worker's last error line from its log (a failed job: the failing log's line that says why,
    indented under the failure); ``skip_sources`` were reported once already;
    ``with_stage``: why the job ended or waits (the job view's summary says it already)."""
    out: list[str] = []
    if with_stage and snap.stage_detail and snap.stage in ("failed", "cancelled", "timed out", "pending"):
        said = snap.stage_detail  # `cancelled with srt-tui cancel at …`, not `cancelled: cancelled with …`
        out.append(said if said.startswith(snap.stage) else f"{snap.stage}: {said}")
        if with_log:
            out.extend(failure_lines(snap))
    for src in snap.sources:
        if src.name == "job dir" and not src.ok:
            out.append(f"job files in {snap.job_dir}: {src.error}")
        elif src.name == "http" and snap.relayed:
            continue  # the stage says `(relayed)`; the source's own line says why
        elif not src.ok and src.name not in skip_sources:
            retry = f" (retry in {src.retry_in_s:.0f} s)" if src.retry_in_s else ""
            out.append(f"source {src.name} unavailable: {src.error}{retry}")
    for r in snap.routers or ((snap.router,) if snap.router is not None else ()):
        if r.up is False:
            log = f" — log: {r.last_error_line}" if r.last_error_line else ""
            out.append(f"{'router' if r.name == 'router' else r.name} {r.type} {r.state}: {r.detail}{log}")
    if snap.nginx is not None and snap.nginx.up is False:
        n = snap.nginx
        out.append(f"nginx {n.state}: {n.detail}" + (f" — log: {n.last_error_line}" if n.last_error_line else ""))
    for w in snap.workers:
        if w.health not in ("healthy", "unknown") and not snap.is_final:
            line = f"{w.name} {w.health} ({w.detail})"
            if w.last_error_line and with_log:
                line += f" — log {w.log}: {w.last_error_line}"
            out.append(line)
    return out


# how fast it serves (the job view's Serving panel, the worker detail, `srt-tui status`) ----------------


def latency(seconds: float | None) -> str:
    """A latency with its unit: `-`, `3.9 ms`, `312 ms`, `1.24 s`."""
    if seconds is None:
        return "-"
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s" if seconds < 100 else f"{seconds:.0f} s"


def tokens_per_s(value: float | None) -> str:
    """Tokens per second with the unit: `-`, `812 tok/s`, `12.3k tok/s`."""
    return "-" if value is None else f"{rate(value)} tok/s"


def percent(fraction: float | None) -> str:
    """A 0..1 fraction as `37 %` (`-` when unknown)."""
    return "-" if fraction is None else f"{fraction * 100:.0f} %"


def quantile_latency(lat: Latency, q: Quantile) -> str:
    """The latency's quantile ``q`` (`p50`) with its unit, or `<100 ms` when it falls in its histogram's first bucket
    (the buckets cannot tell 3 ms from 50 ms there: PromQL's interpolation said 50), `≈160 ms` when it is a P/D job's
    prefill plus decode (the two legs taken as independent)."""
    bound = lat.bound(q)
    if bound is not None:
        return f"<{latency(bound)}"
    value = lat.quantile(q)
    return f"≈{latency(value)}" if value is not None and lat.approximate else latency(value)


def mean_latency(s: Serving, family: LatencyFamily) -> str:
    """`3.4 ms`, the window's mean of ``family`` (`ttft`), when one of its quantiles reads `<bound` (the buckets
    cannot resolve it; the mean can) or is approximate (a prefill plus a decode, whose means add exactly); ""
    otherwise, where the quantiles say enough."""
    lat = s.latency(family)
    return latency(lat.mean_s) if (lat.unresolved or lat.approximate) and lat.mean_s is not None else ""


def latency_spark(s: Serving, family: LatencyFamily, points: tuple[float | None, ...]) -> tuple[float | None, ...]:
    """``family``'s sparkline points (its median per slot), none where the window's median falls in the first bucket:
    a slot's median there is the bucket's interpolated middle (~50 ms beside `mean 0.0 ms`), not the latency."""
    return () if "p50" in s.latency(family).unresolved else points


#: the latencies a short terminal's Serving panel shows (`latency_parts(brief=True)`), each as one figure
BRIEF_LATENCIES: tuple[LatencyFamily, ...] = ("ttft", "itl")


def brief_stat(s: Serving, family: LatencyFamily) -> str:
    """What a short face shows of ``family``: `p50`, or `mean` where the buckets cannot resolve the median (it
    reads `<100 ms`) and the window's mean is known."""
    return "mean" if mean_latency(s, family) and "p50" in s.latency(family).unresolved else "p50"


def brief_title(s: Serving) -> str:
    """The statistic a short Serving panel's title names for its figures: `p50`, `mean` (SGLang's first TTFT bucket
    is 100 ms: a fast job's medians all read `<100 ms`, so its means are shown), or "" when they differ (each figure
    then says its own: `TTFT mean 6.4 ms  TPOT p50 4.1 ms`)."""
    stats = {brief_stat(s, f) for f in BRIEF_LATENCIES}
    return stats.pop() if len(stats) == 1 else ""


def latency_parts(s: Serving, family: LatencyFamily, brief: bool = False) -> list[tuple[str, bool]]:
    """``family``'s (`ttft`) figures after its label, as (text, is it a word rather than a figure) pieces, so the
    panel styles them and `status` joins them: `p50 52 ms p99 80 ms`. Where the buckets cannot resolve a quantile
    the window's mean leads, and quantiles that say only `<100 ms` are said together after it: `mean 6.4 ms
    (p50, p99 <100 ms)`, `mean 75 ms p50 <100 ms p99 183 ms`; a P/D sum: `p50 ≈176 ms p99 ≈249 ms mean 150 ms`.
    ``brief``: one figure, `brief_stat`'s (the median, or the mean where the median reads `<`), named by the panel's
    title (`brief_title`), or by itself when the short panel's figures are of two kinds."""
    lat = s.latency(family)
    mean = mean_latency(s, family)
    if brief:
        stat = brief_stat(s, family)
        word = [] if brief_title(s) else [(f"{stat} ", True)]
        return word + [(mean if stat == "mean" else quantile_latency(lat, "p50"), False)]
    if mean and lat.unresolved:
        if len(lat.unresolved) == 2:
            return [("mean ", True), (mean, False), (f" (p50, p99 {quantile_latency(lat, 'p50')})", True)]
        out = [("mean ", True), (mean, False)]
        for q in QUANTILES:
            out += [(f" {q} ", True), (quantile_latency(lat, q), False)]
        return out
    out = [("p50 ", True), (quantile_latency(lat, "p50"), False)]
    out += [(" p99 ", True), (quantile_latency(lat, "p99"), False)]
    return out + ([(" mean ", True), (mean, False)] if mean else [])


def client_ttft_note(s: Serving, brief: bool = False, family: LatencyFamily = "ttft") -> str:
    """What a client through the job's router sees of TTFT beyond the engines' figures, when its router adds
    some (`Serving.client_ttft_added_s`): `, clients see up to +40 ms (sglang-router sets no TCP_NODELAY)`
    (``brief``: without the reason, which the Serving panel says once under its figures, `client_ttft_reason`); ""
    otherwise, and beside no figure of ``family`` (`TTFT -, clients…` on a job that served nothing yet read as a
    measurement). A client's E2E includes the same held first chunk, so E2E carries the note too. (It said
    `clients +≤40 ms`, which an operator did not read at a glance.)"""
    if not s.client_ttft_added_s or not s.latency(family).measured:
        return ""
    added = f", clients see up to +{latency(s.client_ttft_added_s)}"
    return added if brief else f"{added} ({s.client_ttft_router} sets no TCP_NODELAY)"


def client_ttft_reason(s: Serving) -> str:
    """Why clients see more than the engines' TTFT, said once under the Serving panel's figures (beside them there
    is room only for how much, at 80 columns): `+40 ms: sglang-router sets no TCP_NODELAY`; "" where
    no note is shown (`client_ttft_note`)."""
    if not client_ttft_note(s):
        return ""
    return f"+{latency(s.client_ttft_added_s)}: {s.client_ttft_router} sets no TCP_NODELAY"


def serving_span(s: Serving) -> str:
    """Over what span the rates and latencies were measured, as every face says it: `over the last 62 s`, from the
    oldest sample kept (about a minute back, `CounterHistory.window`) to the newest; an ended job first read after
    its end, from its final counters: `over the 45 s it served`; a worker whose metrics cannot be read now, up to its
    last reading: `over the 62 s up to its last reading, 24 s ago`; "" before a second sample."""
    w = s.window_s
    if not w:
        return ""
    seconds = f"{w:.1f} s" if w < 10 else f"{w:.0f} s" if w < 120 else duration(w)
    if s.age_s is not None:
        return f"over the {seconds} up to its last reading, {_aged(s.age_s)}"
    return f"over the {seconds} it served" if s.since_ready else f"over the last {seconds}"


def benchmark_words(snap: JobSnapshot) -> str:
    """An ended job's benchmark, from its results: its own measured requests completed of its total, `benchmark 30/30
    completed` (`28/30 completed, 2 failed`); "" when it wrote none. Never in a requests column: the router counted its
    warm-up and smoke requests too (`served`)."""
    if snap.requests_from != "benchmark" or snap.requests is None:
        return ""
    failed = snap.errors or 0.0
    completed = number(max(0.0, snap.requests - failed))
    return f"benchmark {completed}/{number(snap.requests)} completed" + (f", {number(failed)} failed" if failed else "")


def left_out(s: Serving) -> str:
    """A job's figures summed without the workers whose metrics cannot be read now: `1 worker not current, left out`
    (a hung worker's last minute stayed in them for 5 min, as if current); "" when every worker's are current, and
    for one worker's own figures (their age says it: `read_ago`)."""
    if not s.unread or s.age_s is not None:
        return ""
    return f"{counted(len(s.unread), 'worker')} not current, left out"


def serving_note(s: Serving, unmeasured: str = "") -> str:
    """What a job's figures cover: their span (``unmeasured`` before one) and the workers left out of them."""
    return " · ".join(part for part in (serving_span(s) or unmeasured, left_out(s)) if part)


def read_ago(s: Serving | None, unread: str) -> str:
    """What a worker's figures are while its metrics cannot be read (``unread``: hung, down): `not current: read 24 s
    ago, before it hung` (its latencies and token rates stayed those of its last minute, shown as current); ""
    for current figures."""
    if s is None or s.age_s is None:
        return ""
    before = {"hung": "it hung", "down": "it went down"}.get(unread, f"it became {unread}" if unread else "then")
    return f"not current: read {_aged(s.age_s)}, before {before}"


def _aged(seconds: float) -> str:
    """`ago`, in seconds under 10 s too: `just now` would read as current."""
    return f"{max(0, int(seconds))} s ago" if seconds < 10 else ago(seconds)


def load(value: float | None, unread: bool) -> str:
    """Requests running or waiting (`number`); while a worker's metrics cannot be read (``unread``) the others' sum
    and the unknown rest, `2+?`, or `?` alone: a zero there would read as idle."""
    if not unread:
        return number(value)
    return f"{number(value)}+?" if value else "?"


def load_words(s: Serving) -> str:
    """`running 12 waiting 2`, and why a part is unknown: `running 2+? waiting 0+? (decode_1 hung)`."""
    unread = bool(s.unread)
    said = f"running {load(s.running, unread)} waiting {load(s.waiting, unread)}"
    return f"{said} ({', '.join(s.unread)})" if unread else said


def serving_line(s: Serving | None, unmeasured: str = "rates after a second sample") -> str:
    """One line of `srt-tui status`: p50/p99 of TTFT, TPOT (inter-token) and E2E (with the mean when the
    buckets cannot resolve them), tok/s, queue, KV use, and the span they cover (``unmeasured`` when there is
    none yet: say how to get one)."""
    if s is None or s.empty:
        return ""

    def figures(family: LatencyFamily) -> str:
        return "".join(text for text, _ in latency_parts(s, family))

    note = client_ttft_note(s)
    e2e_note = client_ttft_note(s, brief=True, family="e2e")  # the reason is said once, beside TTFT
    return (
        f"TTFT {figures('ttft')}{note} · TPOT {figures('itl')} · E2E {figures('e2e')}{e2e_note} · "
        f"in {tokens_per_s(s.input_tok_per_s)} out {tokens_per_s(s.output_tok_per_s)} · "
        f"{load_words(s)} · KV {percent(s.kv_usage)} "
        f"({serving_note(s, unmeasured)})"
    )


#: the widest a node's host name is drawn (the NODE column, the GPU grid's row labels)
HOST_CAP = 16
#: a node of a job that has none yet (queued): no name, not the plan's `node0`
NOT_PLACED = "—"


def node_label(snap: JobSnapshot | None, node_index: int) -> str:
    """How the NODE column and the GPU grid name one of the job's nodes: Slurm's host name (its end kept when long),
    `—` while the job is queued (Slurm has named no node yet), else the plan's `nodeK` until the job wrote it."""
    host = snap.host(node_index) if snap is not None else ""
    if host:
        return short_host(host)
    return NOT_PLACED if snap is not None and not snap.placed else f"node{node_index}"


def short_host(name: str, cap: int = HOST_CAP) -> str:
    """A host name within ``cap`` characters, its end kept (`…rack03-tray07`: the hosts of one cluster share their
    start)."""
    return name if len(name) <= cap else "…" + name[-(cap - 1) :]
