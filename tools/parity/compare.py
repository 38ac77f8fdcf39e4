"""Normalise srtctl's recorded launches and srt-tui's plan.json the same way, then compare process by process.

A process is compared on what changes what runs: program and flags (argparse semantics: order of distinct
flags is free, a flag given twice is a defect), environment, unset environment, srun options, container
image, container mounts, the setup script and the ai-dynamo install. Normalised away on both sides: node
addresses and host names (→ `<nodeK>`), the job id, the log directory (→ `/logs`), where engine config
files and config dumps are written under it, and TRT-LLM's random MoE shared-memory name. srtctl's own
code mounts (`/srtctl-runtime`, `/srtctl-benchmarks`) are not compared: srt-tui has no srtctl to mount.

A difference srt-tui makes on purpose is declared on the process itself (plan.json `differs_from_srtctl`);
`DOCUMENTED` maps each declared id to the difference categories it explains.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

View = dict[str, Any]

IP = re.compile(r"(?<![\d.])10\.77\.(\d+)\.(\d+)(?!\d)")
HOST = re.compile(r"\bnode(\d+)\b")
TUI_NODE = re.compile(r"<(?:ip|host):node(\d+)>")
JOB_ID = re.compile(r"(?<!\d)4242(?!\d)")
#: flags whose value is a file srt-tui and srtctl each name their own way under the log mount
LOG_FILE_FLAGS = ("--dump-config-to", "--extra-engine-args", "--config", "-o")
#: TRT-LLM's MoE load-balancer shared memory: srtctl draws a random name per worker, srt-tui a unique one
RANDOM_ENV = {"TRTLLM_EPLB_SHM_NAME"}
SRTCTL_OWN_MOUNTS = ("/srtctl-runtime", "/srtctl-benchmarks")
#: the recording user's home (a cluster config's `$HOME/...` mount), so a corpus replays under another user
HOME = re.compile(rf"^{re.escape(os.path.expanduser('~'))}(?=/|$)")

#: deliberate differences srt-tui declares (plan.json `differs_from_srtctl` ids) → the categories they explain
DOCUMENTED: dict[str, tuple[str, ...]] = {
    "health-gate": (r"env extra DYN_SYSTEM_ENABLED$", r"env extra DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS$"),
    "subset-unset": (r"^unset ",),
    "router-metrics": (r"argv extra --prometheus-(host|port)$",),
    "router-srun-options": (r"^srun extra ",),
    "mocker-model-name": (r"^argv extra --model-name$",),
    "read-only-mounts": (r"^mount read-only ",),
    "recipe-port": (r"^argv value --(prefill|decode|worker-urls)$",),
    "model-not-staged": (r"^mount missing ", r"^argv value --model(-path)?$"),
}


def norm_srtctl(s: str, tmp: str) -> str:
    """One srtctl string: its job directory, model and container paths, node addresses, job id."""
    s = s.replace(f"{tmp}/out/logs", "/logs").replace(f"{tmp}/out", "<job_dir>")
    s = s.replace(f"{tmp}/model", "<model-host>").replace(f"{tmp}/c.sqsh", "<container>")
    s = HOST.sub(lambda m: f"<node{m.group(1)}>", s.replace(tmp, "<tmp>"))
    s = IP.sub(lambda m: f"<node{int(m.group(1)) * 250 + int(m.group(2)) - 1}>", s)
    return JOB_ID.sub("<job_id>", s)


def norm_tui(s: str, tmp: str) -> str:
    """One srt-tui string: its placeholders in srtctl's spelling (`<logs>` is /logs in a pyxis step)."""
    s = TUI_NODE.sub(lambda m: f"<node{m.group(1)}>", s)
    s = s.replace("<logs>", "/logs").replace("<job_dir>/logs", "/logs").replace("<bind>", "0.0.0.0")
    s = s.replace(f"{tmp}/model", "<model-host>").replace(f"{tmp}/c.sqsh", "<container>")
    return s.replace(tmp, "<tmp>")


def _argv(argv: list[str]) -> list[str]:
    out = list(argv)
    for i, tok in enumerate(out[:-1]):
        if tok in LOG_FILE_FLAGS and out[i + 1].startswith("/logs/"):
            out[i + 1] = "/logs/<file>"
    return out


def _env(env: dict[str, str]) -> dict[str, str]:
    return {k: ("<random>" if k in RANDOM_ENV else v) for k, v in env.items()}


def srtctl_view(p: dict[str, Any], tmp: str) -> View:
    """What one recorded `start_srun_process` call launches, normalised."""

    def n(s: Any) -> str:
        return norm_srtctl(str(s), tmp)

    srun = [f"--nodes={p['nodes']}", f"--ntasks={p['ntasks']}"]
    srun += [f"--mpi={p['mpi']}"] if p["mpi"] else []
    srun += ["--oversubscribe"] if p["oversubscribe"] else []
    srun += [f"--cpu-bind={p['cpu_bind']}"] if p["cpu_bind"] else []
    srun += [f"--cpus-per-task={p['cpus_per_task']}"] if p["cpus_per_task"] else []
    srun += [f"--het-group={p['het_group']}"] if p.get("het_group") is not None else []
    srun += [f"--{k}={v}" if v else f"--{k}" for k, v in p["srun_options"].items()]
    if p["srun_export_env"]:
        srun.append("--export=ALL," + ",".join(f"{k}={v}" for k, v in p["srun_export_env"].items()))
    pre = p["bash_preamble"] or ""
    own = SRTCTL_OWN_MOUNTS
    mounts = {c: HOME.sub("<home>", n(h)) for h, c in p["container_mounts"].items() if not c.startswith(own)}
    return {
        "argv": _argv([n(c) for c in p["command"]]),
        # srtctl's `unset` runs after its exports: a variable it sets and unsets is not there
        "env": _env({k: n(v) for k, v in p["env"].items() if k not in p["unset_env"]}),
        "unset_env": sorted(p["unset_env"]),
        "srun": sorted(srun),
        "container": n(p["container_image"]),
        "mounts": sorted(f"{'<log_dir>' if c == '/logs' else h}:{c}" for c, h in mounts.items()),
        "preamble": n(p.get("cluster_preamble") or ""),
        "setup_script": "setup_script=" in pre,
        # pip from PyPI, a source build, or its staged wheels (runtime_scripts/dynamo_wheels.py: pip --find-links)
        "install": "pip install" in pre or "maturin" in pre or "dynamo_wheels.py install" in pre,
    }


def tui_view(p: dict[str, Any], plan: dict[str, Any], tmp: str) -> View:
    """What one plan.json process launches (as render/script.py and runtime.sh start it), normalised."""

    def n(s: Any) -> str:
        return norm_tui(str(s), tmp)

    opts = plan["srun_options"] if p.get("recipe_srun_options", True) else []
    srun = [f"--{k}={v}" if v is not None else f"--{k}" for k, v in opts]
    if p.get("step_nodes"):
        srun += [f"--mpi={p['mpi'] or 'pmix'}", "--oversubscribe", "--cpu-bind=verbose,none"]
        srun += [f"--nodes={len(p['step_nodes'])}", f"--ntasks={p['tasks']}"]
    else:
        srun += ["--nodes=1", "--ntasks=1"] + ([f"--mpi={p['mpi']}"] if p.get("mpi") else [])
    srun += [f"--{k}={v}" if v else f"--{k}" for k, v in p.get("srun_step_options") or []]
    if p.get("install"):
        srun.append("--export=ALL,ENROOT_REMAP_ROOT=yes")
    mounts = [
        f"{m['host'] if m['host'] == '<log_dir>' else HOME.sub('<home>', n(m['host']))}:{m['container']}"
        + (":ro" if m["readonly"] else "")
        for m in plan["mounts"]
    ]
    return {
        "argv": _argv([n(c) for c in p["command"]]),
        "env": _env({k: n(v) for k, v in p["env"].items()}),
        "unset_env": sorted(p.get("unset_env") or []),
        "srun": sorted(srun),
        "container": n(p.get("container_image") or plan["container_image"]),
        "mounts": sorted(mounts),
        # render/script.py: the profile's default_bash_preamble in every step but nginx's (srtctl's own `bash -c`)
        "preamble": "" if p is plan.get("nginx") else n(plan.get("bash_preamble") or ""),
        "setup_script": bool(p.get("setup_script")),
        "install": bool(p.get("install")),
    }


def _flags(argv: list[str]) -> dict[str, list[list[str]]]:
    """argv as argparse sees it: each `--flag` with the values after it (the program before any flag)."""
    out: dict[str, list[list[str]]] = defaultdict(list)
    key = "<program>"
    for tok in argv:
        if tok.startswith("--"):
            name, eq, val = tok.partition("=")
            key = name
            out[key].append([val] if eq else [])
        else:
            if not out[key]:
                out[key].append([])
            out[key][-1].append(tok)
    return out


def differences(a: View, b: View) -> list[str]:
    """The categories in which srt-tui's process (b) differs from srtctl's (a); empty when it launches the same."""
    out: list[str] = []
    fa, fb = _flags(a["argv"]), _flags(b["argv"])
    for k in sorted(set(fa) | set(fb)):
        if len(fb.get(k, ())) > 1 and len(fa.get(k, ())) <= 1:  # srtctl's repeated flags add up (--prefill)
            out.append(f"argv twice {k}")
        if k not in fb:
            out.append(f"argv missing {k}")
        elif k not in fa:
            out.append(f"argv extra {k}")
        elif (fa[k] != fb[k]) if len(fa[k]) > 1 and len(fb[k]) > 1 else fa[k][-1] != fb[k][-1]:
            out.append(f"argv value {k}")  # both repeat it: it adds up (--prefill); else argparse keeps the last
    for k in sorted(set(a["env"]) | set(b["env"])):
        if k not in b["env"]:
            out.append(f"env missing {k}")
        elif k not in a["env"]:
            out.append(f"env extra {k}")
        elif a["env"][k] != b["env"][k]:
            out.append(f"env value {k}")
    if a["unset_env"] != b["unset_env"]:
        out.append(f"unset {' '.join(a['unset_env']) or '-'} -> {' '.join(b['unset_env']) or '-'}")
    sa, sb = set(a["srun"]), set(b["srun"])
    out += [f"srun missing {s}" for s in sorted(sa - sb)]
    out += [f"srun extra {s}" for s in sorted(sb - sa)]
    if a["container"] != b["container"]:
        out.append("container")
    ma, mb = set(a["mounts"]), {m.removesuffix(":ro") for m in b["mounts"]}
    out += [f"mount missing {m.split(':', 1)[1]}" for m in sorted(ma - mb)]
    out += [f"mount extra {m.split(':', 1)[1]}" for m in sorted(mb - ma)]
    out += [f"mount read-only {m.split(':')[1]}" for m in sorted(b["mounts"]) if m.endswith(":ro") and m[:-3] in ma]
    if "preamble" in a and a["preamble"] != b["preamble"]:  # corpora recorded before it have none
        out.append("cluster preamble")
    if a["setup_script"] != b["setup_script"]:
        out.append("setup script")
    if a["install"] != b["install"]:
        out.append("ai-dynamo install")
    return out


#: what srtctl's template writes when neither the recipe nor srtslurm.yaml names an account or partition
#: (`SLURM_ACCOUNT`/`SLURM_PARTITION` or the word `default`); srt-tui writes none, so Slurm uses the user's own
SBATCH_PLACEHOLDERS = {"--account=default", "--partition=default"}


def sbatch_differences(theirs: list[str], plan: dict[str, Any]) -> list[str]:
    """How srt-tui's `#SBATCH` directives (plan.json) differ from those srtctl's submit writes, name and log aside."""
    ours = {f"--{k}={v}" if v is not None else f"--{k}" for k, v in plan["sbatch_directives"]}
    ours = {d for d in ours if not d.startswith(("--job-name", "--output"))}
    mine = set(theirs) - SBATCH_PLACEHOLDERS
    return [f"sbatch missing {d}" for d in sorted(mine - ours)] + [f"sbatch extra {d}" for d in sorted(ours - mine)]


def _index(name: str | None) -> int:
    m = re.search(r"(\d+)$", name or "")
    return int(m.group(1)) if m else 0


def srtctl_processes(rec: dict[str, Any]) -> dict[str, View]:
    """srtctl's worker, router and nginx launches of one recorded job, by a key both sides share."""
    out: dict[str, View] = {}
    routers = []
    for p in rec["processes"]:
        base = Path(p["output"] or "").name
        if p["stage"] == "worker":
            m = re.match(r"node(\d+)_(prefill|decode|agg)_w(\d+)\.out$", base)
            if m is None:
                raise ValueError(f"unexpected srtctl worker log name {base}")
            out[f"worker {m.group(2)} {int(m.group(3))} node{int(m.group(1))}"] = srtctl_view(p, rec["tmp"])
        elif p["stage"] == "frontend":
            if "nginx" in " ".join(p["command"][:3]):
                out["nginx"] = srtctl_view(p, rec["tmp"])
            else:
                routers.append(p)
    for i, p in enumerate(sorted(routers, key=lambda p: int(p["nodelist"][0].removeprefix("node")))):
        out[f"router {i}"] = srtctl_view(p, rec["tmp"])
    return out


def plan_document(prepared: Any) -> dict[str, Any]:
    """plan.json of a prepared job, with the one launch fact it does not hold: the cluster's bash preamble."""
    return {**prepared.plan.to_json(), "bash_preamble": prepared.plan.bash_preamble}


def tui_processes(plan: dict[str, Any], tmp: str) -> dict[str, tuple[View, list[str]]]:
    """srt-tui's steps of one plan.json by the same keys, each with the srtctl differences it declares."""
    out: dict[str, tuple[View, list[str]]] = {}

    job_wide = [d["id"] for d in plan.get("differs_from_srtctl") or []]  # the mounts every step gets

    def add(key: str, p: dict[str, Any]) -> None:
        out[key] = (tui_view(p, plan, tmp), [*job_wide, *(d["id"] for d in p.get("differs_from_srtctl") or [])])

    for p in plan["processes"]:
        if not p.get("launched_by"):  # an MPI worker's other nodes run in its leader's step
            add(f"worker {p['role']} {_index(p.get('worker') or p['name'])} node{p['node_index']}", p)
    for i, r in enumerate(sorted(plan.get("routers") or [], key=lambda r: r["node_index"])):
        add(f"router {i}", r)
    if plan.get("nginx"):
        add("nginx", plan["nginx"])
    return out


def kind_of(key: str, backend: str, frontend: str) -> str:
    """The process kind a key reports under: worker by engine, router by type, nginx."""
    head = key.split(" ", 1)[0]
    return {"worker": f"worker:{backend}", "router": f"router:{frontend}"}.get(head, head)


@dataclass
class Tally:
    """Matched / compared per kind, and the differences by category (with an example job each)."""

    exact: Counter[str] = field(default_factory=Counter)
    documented: Counter[str] = field(default_factory=Counter)
    compared: Counter[str] = field(default_factory=Counter)
    undocumented: Counter[str] = field(default_factory=Counter)
    deliberate: Counter[str] = field(default_factory=Counter)
    example: dict[str, str] = field(default_factory=dict)
    jobs: Counter[str] = field(default_factory=Counter)

    def add_job(
        self,
        spec: str,
        kinds: tuple[str, str],
        theirs: dict[str, View],
        ours: dict[str, Any],
        sbatch: list[str] | None = None,
    ) -> None:
        """Compare one job's processes (srtctl's views against srt-tui's (view, declared ids)), and its `#SBATCH`
        directives when srtctl's are known (`sbatch_differences`, already computed)."""
        self.jobs["compared"] += 1
        if sbatch is not None:
            self.compared["sbatch"] += 1
            self.exact["sbatch"] += not sbatch
            self.documented["sbatch"] += not sbatch
            for d in sbatch:
                self.undocumented[f"sbatch: {d}"] += 1
                self.example.setdefault(f"sbatch: {d}", spec)
        for key in sorted(set(theirs) | set(ours)):
            kind = kind_of(key, *kinds)
            self.compared[kind] += 1
            if key not in ours or key not in theirs:
                diffs, declared = [f"process only in {'srtctl' if key not in ours else 'srt-tui'}"], []
            else:
                view, declared = ours[key]
                diffs = differences(theirs[key], view)
            explained = [d for d in diffs if _documented(d, declared)]
            if not diffs:
                self.exact[kind] += 1
            if len(explained) == len(diffs):
                self.documented[kind] += 1
            for d in diffs:
                cat = f"{kind}: {d}"
                (self.deliberate if d in explained else self.undocumented)[cat] += 1
                self.example.setdefault(cat, spec)

    def report(self) -> str:
        """The table the README describes: per kind exact and exact-but-documented, then the categories."""
        lines = [f"jobs: {dict(self.jobs)}", f"  {'kind':24s} {'exact':>13s} {'exact or documented':>24s}"]
        for kind in sorted(self.compared):
            lines.append(_row(kind, self.exact[kind], self.documented[kind], self.compared[kind]))
        procs = [k for k in self.compared if k != "sbatch"]  # `sbatch` counts jobs, the rest processes
        total = sum(self.compared[k] for k in procs)
        lines.append(
            _row("all processes", sum(self.exact[k] for k in procs), sum(self.documented[k] for k in procs), total)
        )
        lines.append("undocumented differences by category (processes):")
        lines += [f"  {n:5d}  {c}   e.g. {self.example[c]}" for c, n in self.undocumented.most_common()] or ["  none"]
        lines.append("documented differences (declared in plan.json differs_from_srtctl):")
        lines += [f"  {n:5d}  {c}   e.g. {self.example[c]}" for c, n in self.deliberate.most_common()] or ["  none"]
        return "\n".join(lines)


def _row(kind: str, exact: int, documented: int, compared: int) -> str:
    def pct(n: int) -> str:
        return f"{n:5d}/{compared:<5d} {100 * n / max(compared, 1):5.1f}%"

    return f"  {kind:24s} {pct(exact)}   {pct(documented)}"


def _documented(diff: str, declared: list[str]) -> bool:
    return any(re.search(rx, diff) for d in declared for rx in DOCUMENTED.get(d, ()))
