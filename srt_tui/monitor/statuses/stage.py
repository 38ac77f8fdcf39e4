"""Lifecycle stage of a job from its own events reconciled with Slurm's state, and its start/end times."""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

from srt_tui.core.jobdir.contract import CancelDoc
from srt_tui.monitor.files.jobfiles import Event
from srt_tui.monitor.model import FINAL_STAGES, READY_STAGES, ROLE_LETTERS, ProxyStatus, RouterStatus, iso_utc
from srt_tui.slurm.client import JobState

_SLURM_FINAL = {
    "COMPLETED": "completed",
    "CANCELLED": "cancelled",
    "TIMEOUT": "timed out",
    "FAILED": "failed",
    "NODE_FAIL": "failed",
    "OUT_OF_MEMORY": "failed",
    "BOOT_FAIL": "failed",
    "DEADLINE": "timed out",
    "PREEMPTED": "cancelled",
}
#: the job script's sentence for a step that ended while the job ran (runtime.sh's `srt_check_alive`: `worker agg_1
#: exited with code 137; log: …`, the router `router exited with code 137; log: …`; its benchmark step: `benchmark
#: exited with code 1; log: …`)
_EXITED = re.compile(r"(?P<who>(?:(?P<kind>\S+) )?(?P<name>\S+)) exited with code (?P<rc>\d+)(?P<rest>;.*)?", re.DOTALL)
#: a shell's status of a process killed by signal N is 128 + N (Linux has signals up to 64)
_SIGNALLED = range(129, 129 + 64)


def derive_stage(events: list[Event], state: JobState | None, cancel: CancelDoc | None = None) -> tuple[str, str, str]:
    """(stage, time, detail) from the job's own events reconciled with Slurm's state; a job srt-tui cancelled
    (``cancel``: its cancel.json) says so, `cancelled with srt-tui cancel at 12:03 UTC`, where the job could only
    guess (`stopped by a signal (…)`) or Slurm say `CANCELLED`."""
    stage, when, detail = _derive(events, state)
    preempted = state is not None and state.state == "PREEMPTED"  # cancelled by Slurm, whatever was asked
    if stage == "cancelled" and cancel is not None and not preempted:
        return stage, when, cancel.words()
    return stage, when, detail


#: the roles in the order the job's own `router ready` detail names them (`P 1/1 D 2/2`)
_ROLE_ORDER = ("prefill", "decode", "agg")
#: what a `router ready` this Monitor saw before the job wrote it says after its registrations
SEEN_BY_MONITOR = "(seen by the Monitor)"


def seen_ready(stage: str, routers: tuple[RouterStatus, ...], nginx: ProxyStatus | None) -> tuple[str, str] | None:
    """(`router ready`, its detail) when the job's last stage is `router starting` but this refresh's own probes
    already see what the job waits for: every router answering with every worker it expects registered (its health
    alone for a router with no registration list), and nginx answering in front of them; None otherwise.

    The launch script writes `router ready` when its own wait (`srt_wait_router`) next asks the router: it asks at
    the job's health-check interval (`health_check.interval_seconds`, srtctl's default 10 s; 1 s in the demo
    profiles), each pass also relaying every worker's health and metrics first and waiting up to 3 s on a router
    that takes the connection before it answers. The Monitor asks every 2 s, so its router panel read `up, registered
    P 1/1 D 2/2` under a header still saying `stage router starting`. The stage shown is the further of the two:
    the job's own event replaces this one at its next poll."""
    if stage != "router starting" or not routers or (nginx is not None and (nginx.up is not True or nginx.stale)):
        return None
    for r in routers:
        listed = r.registration in ("router-workers", "dynamo-health")
        if r.up is not True or r.stale or (listed and not r.all_registered):
            return None
    first = routers[0]
    if len(routers) > 1 or nginx is not None:
        said = f"{len(routers)} routers registered their workers, nginx answers"
    elif first.registration in ("router-workers", "dynamo-health"):
        roles = sorted(first.expected, key=lambda k: _ROLE_ORDER.index(k) if k in _ROLE_ORDER else 9)
        said = " ".join(f"{ROLE_LETTERS.get(k, k)} {first.registered.get(k, 0)}/{first.expected[k]}" for k in roles)
    else:
        said = "health 200"
    return "router ready", f"{said} {SEEN_BY_MONITOR}"


def _derive(events: list[Event], state: JobState | None) -> tuple[str, str, str]:
    last = events[-1] if events else Event("submitted", "", "")
    slurm = state.state if state is not None else "UNKNOWN"
    if slurm == "PENDING" and last.stage in ("submitted", ""):
        return "pending", last.time, state.reason_worth_showing if state else ""
    final = _SLURM_FINAL.get(slurm)
    if final is not None:
        if last.stage in FINAL_STAGES:
            if final == "timed out" and last.stage == "cancelled":
                return "timed out", last.time, "time limit reached"
            return last.stage, last.time, _said(last, events)
        reason = state.reason_worth_showing if state else ""
        detail = f"Slurm: {slurm}" + (f" ({reason})" if reason else "")
        if final == "completed":
            final, detail = "failed", f"the job ended at stage `{last.stage}` ({detail})"
        return final, last.time, detail
    return last.stage, last.time, _said(last, events)


def _said(last: Event, events: list[Event]) -> str:
    """The ``last`` event's detail, a failure's in words that do not read as success."""
    if last.stage != "failed":
        return last.detail
    return exit_words(last.detail, any(e.stage in READY_STAGES for e in events))


def exit_words(detail: str, served: bool) -> str:
    """A step's end as the job recorded it (`worker decode_0 exited with code 137; log: …`) in words that never
    read as success: `was killed (signal 9)` for a shell's 128 + N, and a code 0 (an engine that handled the
    operator's SIGTERM and stopped cleanly) said to be out of place, while the job ``served`` or before."""
    said = _EXITED.fullmatch(detail)
    if said is None:
        return detail
    code = int(said["rc"])
    if code not in _SIGNALLED and code != 0:
        return detail
    return f"{_who(said)} {_code_words(code, served)}{said['rest'] or ''}"


def _who(said: re.Match[str]) -> str:
    """The step as the sentence names it: `worker decode_0`, and the router once, `router` (runtime.sh's `srt_who`
    writes it so; job directories written before it say `router router`)."""
    return said["name"] if said["kind"] == said["name"] else said["who"]


def _code_words(code: int, served: bool) -> str:
    """`was killed (signal 9)`, `exited (code 0) while the job was serving`, `exited with code 3`."""
    if code in _SIGNALLED:
        return f"was killed (signal {code - 128})"
    if code == 0:
        return f"exited (code 0) while the job was {'serving' if served else 'starting'}"
    return f"exited with code {code}"


#: what usually sends a signal that leaves nothing in the log, for the operator to check
_SIGNAL_HINTS = {
    9: "out of memory? scancel? kill -9?",
    15: "scancel? kill? the time limit?",
    6: "an abort: a failed assertion or an uncaught C++ exception?",
    11: "a crash in native code",
    7: "a bus error: /dev/shm full?",
    2: "an interrupt (Ctrl-C)?",
}


@dataclass(frozen=True)
class StepExit:
    """A step the job script saw end while the job ran, as its `failed` event records it: the cause the job
    knows (its exit status), which nothing the monitor probes afterwards can tell (a killed worker's log is
    silent; its port merely refuses)."""

    kind: str
    name: str
    code: int
    #: the event's time (ISO-8601 UTC, as the job wrote it)
    time: str
    #: the job had served before it ended (a code 0 then is out of place)
    served: bool

    @property
    def signal(self) -> int | None:
        """The signal that killed it (a shell's status 128 + N), None for an exit of its own."""
        return self.code - 128 if self.code in _SIGNALLED else None

    def health_words(self) -> str:
        """What its health history says: `killed (signal 9)`, `exited with code 3`."""
        return _code_words(self.code, self.served).removeprefix("was ")

    def silent_log(self) -> str:
        """Why it ended when its log has no line that says so (SIGKILL leaves none): `no error in its log; it was
        killed by signal 9 (SIGKILL: out of memory? scancel? kill -9?)`, `no error in its log; it exited with
        code 2`."""
        sig = self.signal
        if sig is None:
            return f"no error in its log; it {_code_words(self.code, self.served)}"
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        hint = _SIGNAL_HINTS.get(sig)
        return f"no error in its log; it was killed by signal {sig} ({name}{': ' + hint if hint else ''})"

    def reason(self, logged: bool) -> str:
        """What is said of its end before its log's lines: a signal is the reason whatever the log says last
        (`kill -9` of a router left its last `Failed to download tokenizer` standing as the cause), said before
        the log's error line when it has one (``logged``); an exit of its own is explained by that line, so it
        is said only when the log has none (`silent_log`); "" otherwise."""
        if not logged:
            return self.silent_log()
        if self.signal is None:
            return ""
        return self.silent_log().removeprefix("no error in its log; ") + "; its log's last error line:"


def step_exit(events: list[Event]) -> StepExit | None:
    """The step whose end failed the job (the last event, `failed`, in runtime.sh's words), else None."""
    last = events[-1] if events else None
    said = _EXITED.fullmatch(last.detail) if last is not None and last.stage == "failed" else None
    if last is None or said is None:
        return None
    served = any(e.stage in READY_STAGES for e in events)
    return StepExit(said["kind"] or said["name"], said["name"], int(said["rc"]), last.time, served)


def started_at(events: list[Event], state: JobState | None) -> str:
    """When the job started running: Slurm's start time, else its first `starting` event."""
    if state is not None and state.start_time:
        return iso_utc(state.start_time)
    return next((e.time for e in events if e.stage == "starting"), "")


def ended_at(events: list[Event], state: JobState | None, final: bool) -> str:
    """When it ended (empty while it runs): Slurm's end time, else its final event."""
    if not final:
        return ""
    if state is not None and state.end_time:
        return iso_utc(state.end_time)
    return events[-1].time if events and events[-1].stage in FINAL_STAGES else ""
