"""The readable dry-run: GPU grid, process table, commands with env, mounts, env by scope, script."""

from __future__ import annotations

import shlex

from srt_tui.core.api import Prepared
from srt_tui.core.plan.deviations import DEVIATIONS
from srt_tui.core.text.model_line import model_line
from srt_tui.core.text.role_lines import role_line
from srt_tui.core.text.views import fixed_table, gpu_grid, node_services, table_rows


def describe(prep: Prepared, with_script: bool = True) -> str:
    """Multi-section plain text (no colour) of what the job will do."""
    plan, job = prep.plan, prep.job
    prof = job.profile
    gpu_req = (
        "--gpus-per-node"
        if prof.use_gpus_per_node_directive
        else "GRES " + ((prof.default_sbatch_directives or {}).get("gres", "(none)"))
    )
    out = [
        f"srt-tui dry-run: {plan.name}  ({plan.topology}, {plan.serving})",
        f"profile {plan.profile}"
        + (f" ({job.profile_path})" if job.profile_path else "")
        + f": {plan.nodes} node(s) × {plan.gpus_per_node} GPUs, mask variable {plan.visible_devices_env}, "
        f"GPUs via {gpu_req}, interface {plan.network_interface}, runtime {plan.container_runtime}",
        f"slurm: account {job.account or '-'}, partition {job.partition or '-'}, time {job.time_limit}"
        + (f"; container {plan.container_image}" if plan.container_image else ""),
        f"model: {model_line(plan)}",
        *(f"{s.role}: {role_line(job.recipe, s.role, s.gpus, s.nodes)}" for s in job.shapes),
        "",
        "GPU plan (node × GPU; P=prefill D=decode A=agg, digits = worker index, · = idle)",
    ]
    grid = gpu_grid(plan)
    header = ["      "] + [f"{g:>4}" for g in range(plan.gpus_per_node)]
    out.append("".join(header) + "   services")
    for i, row in enumerate(grid):
        services = ", ".join(f"{p.name}:{p.port}" if p.port else p.name for p in node_services(plan, i))
        ports = sorted({f"{c.process.name}:{c.process.port}" for c in row if c.process and c.process.port})
        out.append(
            f"node{i:<2}"
            + "".join(f"{c.label:>4}" for c in row)
            + "   "
            + ", ".join(ports + ([services] if services else []))
        )
    out += [
        "",
        "Processes",
        fixed_table(("NAME", "ROLE", "NODE", "GPUS", "MASK", "PORT", "URL"), table_rows(plan)),
    ]
    out += ["", "Commands and environment"]
    for p in plan.processes():
        if p.launched_by:
            out.append(f"  {p.name} (node{p.node_index}): its ranks run in {p.launched_by}'s MPI step")
            continue
        where = f"node{p.node_index}"
        if p.step_nodes:
            where = "+".join(f"node{n}" for n in p.step_nodes)
            where += f", MPI step: {p.tasks} tasks, {p.tasks_per_node} per node, srun --mpi={p.mpi}"
        out.append(f"  {p.name} ({where}, log {p.log}):")
        if p.install:
            out.append("    first (ai-dynamo install): " + p.install)
        out.append("    " + shlex.join(p.command))
        env = p.shown_env()
        if env:
            out.append("    env: " + " ".join(f"{k}={v}" for k, v in env.items()))
        if p.unset_env:
            out.append("    unset (inherited values it must not see): " + " ".join(p.unset_env))
        srun = [*(() if p.recipe_srun_options or not plan.srun_options else ("no recipe srun_options",))]
        srun += [f"--{k}" + (f"={v}" if v is not None else "") for k, v in p.srun_step_options]
        if srun:
            out.append("    srun: " + " ".join(srun))
        for d in p.differs_from_srtctl:
            out.append(f"    differs from srtctl: {DEVIATIONS[d].what} ({DEVIATIONS[d].why})")
    if plan.secret_env:
        out.append(f"  secrets (from the job's 0600 secrets.env, never in the script): {', '.join(plan.secret_env)}")
    out += ["", "Mounts"]
    if plan.mounts:
        out.append(
            fixed_table(
                ("HOST", "CONTAINER", "SOURCE"),
                [(m.host, m.container + (":ro" if m.readonly else ""), m.source) for m in plan.mounts],
            )
        )
    else:
        out.append("  none (container_runtime: none runs engines on the host)")
    for d in plan.differs_from_srtctl:
        out.append(f"  differs from srtctl (every step): {DEVIATIONS[d].what} ({DEVIATIONS[d].why})")
    out += ["", "Environment by scope"]
    scopes = [(s, pairs) for s, pairs in plan.env_scopes if pairs]
    if scopes:
        for scope, pairs in scopes:
            out.append(f"  {scope}: " + " ".join(f"{k}={v}" for k, v in pairs))
    else:
        out.append("  none")
    out += [
        "",
        "sbatch directives: " + " ".join(f"--{k}" + (f"={v}" if v is not None else "") for k, v in plan.directives),
    ]
    if plan.srun_options:
        out.append(
            "srun options: " + " ".join(f"--{k}" + (f"={v}" if v is not None else "") for k, v in plan.srun_options)
        )
    exporter = plan.gpu_exporter
    out.append(
        "GPU exporter: "
        + (
            f"{exporter.image} port {exporter.port} (from {exporter.source}), "
            + ("started on every node (telemetry)" if exporter.launched else "not started (telemetry off)")
            if exporter
            else "disabled"
        )
    )
    if plan.warnings:
        out += ["", "Warnings"] + [f"  {w.render()}" for w in plan.warnings]
    if with_script:
        out += ["", "Launch script (sbatch.sh)", "-" * 100, prep.script.rstrip("\n"), "-" * 100]
    return "\n".join(out) + "\n"
