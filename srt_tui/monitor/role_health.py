"""Whether a ready job can serve: a role with no healthy worker cannot (every request needs one of each role), a
role with some but not all healthy serves with fewer. One rule for every face that says the stage: the job view's
state line, the jobs list's STAGE and `srt-tui status` (`cells.stage_cell`).

An operator stopped both decode workers of a 1P2D job (`kill -STOP`): the router panel said `D 2/2 (0 healthy)`, the
jobs list `▲` and `D0/2`, and the stage still `serving`."""

from __future__ import annotations

from dataclasses import dataclass

from srt_tui.core.text.counts import counted
from srt_tui.monitor.model import READY_STAGES, JobSnapshot

#: the healths that say a worker does not serve now (`unknown`, not probed yet, says nothing either way)
NOT_SERVING = ("hung", "down", "unhealthy", "unreachable")
#: the roles in the order they are named
_ROLE_ORDER = {"prefill": 0, "decode": 1, "agg": 2}
#: the stage word of a ready job with a role that has no healthy worker
DEGRADED = "degraded"


@dataclass(frozen=True)
class RoleShortfall:
    """One role of a ready job with workers that do not serve now: how many are healthy of how many, and the
    others' healths counted (`(("hung", 2),)`)."""

    role: str
    healthy: int
    total: int
    not_serving: tuple[tuple[str, int], ...]

    @property
    def none_healthy(self) -> bool:
        """No worker of the role serves: the job cannot answer a request."""
        return self.healthy == 0

    def words(self) -> str:
        """`no healthy decode worker (2 hung)`, `1/2 decode workers healthy (1 hung)`."""
        why = ", ".join(f"{n} {health}" for health, n in self.not_serving)
        if self.none_healthy:
            return f"no healthy {self.role} worker ({why})"
        return f"{self.healthy}/{counted(self.total, f'{self.role} worker')} healthy ({why})"

    def counts(self) -> dict[str, int]:
        """`{"healthy": 0, "workers": 2, "hung": 2}`: the role's figures for `status --json`."""
        return {"healthy": self.healthy, "workers": self.total, **dict(self.not_serving)}


def shortfalls(snap: JobSnapshot) -> tuple[RoleShortfall, ...]:
    """The roles of a ready, running job (`READY_STAGES`) with a worker seen not serving (`NOT_SERVING`), in role
    order; () for any other job (one starting has workers not up yet by design; an ended one has none)."""
    if snap.is_final or snap.stage not in READY_STAGES:
        return ()
    by_role: dict[str, list[str]] = {}
    for w in snap.workers:
        by_role.setdefault(w.role, []).append(w.health)
    out = []
    for role, healths in sorted(by_role.items(), key=lambda kv: _ROLE_ORDER.get(kv[0], 9)):
        bad = [h for h in NOT_SERVING if h in healths]
        if bad:
            counts = tuple((h, healths.count(h)) for h in bad)
            out.append(RoleShortfall(role, healths.count("healthy"), len(healths), counts))
    return tuple(out)


def front_shortfall(snap: JobSnapshot) -> tuple[bool, str]:
    """(whether the job cannot serve for it, what to say) of the frontend of a ready, running job: every request
    passes nginx, else the router, so one that does not serve now (`hung`, `down`) stops the job: `(True, "router
    hung")`; behind nginx, one router of several serves with fewer: `(False, "router_1 hung")`, all of them stop
    it. `(False, "")` when the frontend serves, is not known yet, or the job is not ready (s36 new-operator pass: a
    router stopped with `kill -STOP` left the stage `serving`)."""
    if snap.is_final or snap.stage not in READY_STAGES:
        return False, ""
    front = snap.nginx or snap.router
    if front is None:
        return False, ""
    if front.up is False:
        return True, f"{front.name} {front.state}"
    off = [r for r in snap.routers if r.up is False] if snap.nginx is not None else []
    said = ", ".join(f"{r.name} {r.state}" for r in off)
    return bool(off) and len(off) == len(snap.routers), said


def stage_words(snap: JobSnapshot) -> tuple[str, str]:
    """(the stage word, what it adds): `("degraded", "no healthy decode worker (2 hung)")` when a role has no
    healthy worker, or `("degraded", "router hung")` when the frontend does not serve (`front_shortfall`),
    `(stage, "1/2 decode workers healthy (1 hung)")` when one serves with fewer, `(stage, "")` otherwise."""
    found = shortfalls(snap)
    stops, front = front_shortfall(snap)
    if not found and not front:
        return snap.stage, ""
    said = "; ".join([front] * bool(front) + [s.words() for s in found])
    return (DEGRADED if stops or any(s.none_healthy for s in found) else snap.stage), said


def health_json(snap: JobSnapshot) -> dict[str, object]:
    """`status --json`'s `health`: the stage every face shows (`degraded` where the JSON's own `stage` keeps the
    job's, `serving`), what it adds (`says`) and each role short of healthy workers, `{"stage": "degraded", "says":
    "no healthy decode worker (2 hung)", "roles": {"decode": {"healthy": 0, "workers": 2, "hung": 2}}}`."""
    stage, said = stage_words(snap)
    return {"stage": stage, "says": said, "roles": {s.role: s.counts() for s in shortfalls(snap)}}
