"""Check an existing profile against the live cluster: each finding says what is wrong and how to fix it."""

from __future__ import annotations

from dataclasses import replace

from srt_tui.core.spec.profile import Profile
from srt_tui.setup.findings import Finding
from srt_tui.setup.gpu_tools import tool_named
from srt_tui.setup.probes import ProbeOptions, ProbeRun, Progress, run_probes
from srt_tui.setup.proposal import pick_interface
from srt_tui.slurm.preflight import PreflightCheck


def profile_paths(profile: Profile) -> tuple[str, ...]:
    """Host paths the profile names that compute nodes must see (models, mounts, output dir)."""
    paths: list[str] = []
    paths += [p for p in (profile.model_paths or {}).values() if p.startswith("/")]
    paths += [p for p in (profile.containers or {}).values() if p.startswith("/")]
    paths += [p for p in (profile.default_mounts or {}) if p.startswith("/") and "$" not in p]
    if profile.output_dir:
        paths.append(profile.output_dir)
    return tuple(dict.fromkeys(paths))


def check_profile(profile: Profile, run: ProbeRun) -> list[Finding]:
    """Compare the profile's claims with what the probes saw."""
    out: list[Finding] = []
    names = [p.name for p in run.partitions]
    wanted = profile.default_partition
    if not run.reachable:
        return [Finding.bad("doctor", "Slurm is not reachable, so nothing could be checked", "see the slurm finding")]
    if wanted and wanted not in names:
        out.append(
            Finding.bad(
                "default_partition",
                f"partition `{wanted}` does not exist on this cluster",
                f"set `default_partition:` to one of: {', '.join(names) or '(none)'}",
                evidence="scontrol show partition",
            )
        )
    elif wanted:
        out.append(Finding.good("default_partition", f"`{wanted}` exists", "scontrol show partition"))
    nodes = run.partition_nodes()
    counts = sorted({n.gpus for n in nodes})
    if profile.gpus_per_node and counts:
        if counts != [profile.gpus_per_node]:
            out.append(
                Finding.bad(
                    "gpus_per_node",
                    f"profile says {profile.gpus_per_node} GPUs per node; GRES of `{run.partition}` says "
                    f"{', '.join(map(str, counts))}",
                    f"set `gpus_per_node: {counts[0]}`",
                    evidence=nodes[0].gres if nodes else "",
                )
            )
        else:
            out.append(Finding.good("gpus_per_node", f"{profile.gpus_per_node} matches GRES", nodes[0].gres))
    gres = (profile.default_sbatch_directives or {}).get("gres", "")
    if gres and counts and gres.rsplit(":", 1)[-1].isdigit() and int(gres.rsplit(":", 1)[-1]) > counts[0]:
        out.append(
            Finding.bad(
                "default_sbatch_directives.gres",
                f"`gres: {gres}` asks for more GPUs than a node has ({counts[0]})",
                f"set `gres: gpu:{counts[0]}`",
            )
        )
    if profile.use_gpus_per_node_directive and run.gpus_per_node_directive is False:
        fix = 'set `use_gpus_per_node_directive: false` and `default_sbatch_directives: {gres: "gpu:N"}`'
        out.append(
            Finding.bad(
                "use_gpus_per_node_directive",
                "sbatch rejects --gpus-per-node here",
                fix,
                evidence=run.directive_evidence,
            )
        )
    elif run.gpus_per_node_directive is not None:
        out.append(Finding.good("gpu request", "the profile's GPU request is accepted", run.directive_evidence))
    mpi = run.mpi
    if mpi is not None and profile.mpi_plugin not in mpi.usable:
        out.append(
            Finding.bad(
                "mpi_plugin",
                f"`mpi_plugin: {profile.mpi_plugin}` does not load here: MPI steps (Dynamo frontend, TRT-LLM) fail "
                f"with `Invalid MPI type '{profile.mpi_plugin}'`",
                f"set `mpi_plugin: {mpi.best}`",
                evidence=mpi.evidence(),
            )
        )
    elif mpi is not None:
        out.append(Finding.good("mpi_plugin", f"`{profile.mpi_plugin}` loads", mpi.evidence()))
    node = run.node
    if node is not None:
        iface = node.interface(profile.interface)
        if iface is None or not iface.ipv4:
            best, why = pick_interface(node.interfaces)
            have = ", ".join(f"{i.name} {','.join(i.ipv4) or '(no IPv4)'}" for i in node.interfaces)
            problem = "does not exist" if iface is None else "has no IPv4 address"
            out.append(
                Finding.bad(
                    "network_interface",
                    f"interface `{profile.interface}` {problem} on {node.node}",
                    f"set `network_interface: {best.name}`" if best else "set network_interface to a NIC with IPv4",
                    evidence=f"ip -j addr on {node.node}: {have}",
                )
            )
        else:
            out.append(Finding.good("network_interface", f"{iface.name} {', '.join(iface.ipv4)}", f"on {node.node}"))
        tool = node.gpu_tool
        row = tool_named(tool.tool) if tool else None
        if row is not None and tool is not None and row.visible_devices_env != profile.visible_devices_env:
            out.append(
                Finding.bad(
                    "visible_devices_env",
                    f"{tool.tool} answered on {node.node} but the profile masks GPUs with "
                    f"{profile.visible_devices_env}",
                    f"set `visible_devices_env: {row.visible_devices_env}`",
                )
            )
        if profile.container_runtime == "pyxis" and not node.pyxis:
            out.append(
                Finding.bad(
                    "container_runtime",
                    f"the profile uses pyxis but srun on {node.node} has no --container-image",
                    "set `container_runtime: none` (engines on the host) or ask the admins for pyxis/enroot",
                )
            )
    return out


def unread_model_paths(profile: Profile, read: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The profile's `model_paths` no job checked here loads (``read``: those a checked recipe's engine loads). Only an
    engine that loads a model reads its path (the mocker reads none), so one of these missing only warns: the demo's
    mock model, which the mocker never reads, failed doctor."""
    return tuple(p for p in dict.fromkeys((profile.model_paths or {}).values()) if p not in read)


def run_doctor(
    profile: Profile, options: ProbeOptions, progress: Progress | None = None, read_models: tuple[str, ...] = ()
) -> tuple[ProbeRun, list[Finding]]:
    """Probe the cluster for this profile (its partition and paths) and check the profile; ``read_models``: the model
    paths a recipe checked with it loads (the other model paths only warn: `unread_model_paths`)."""
    parts = options.partition or profile.default_partition
    # the caller's options as they are (its stop event too), with the profile's partition and paths
    opts = replace(
        options,
        partition=parts,
        mpi_also=(profile.mpi_plugin,),
        paths=tuple(dict.fromkeys([*options.paths, *profile_paths(profile)])),
        unread_paths=unread_model_paths(profile, read_models),
    )
    run = run_probes(opts, progress) if progress else run_probes(opts)
    if parts and parts not in [p.name for p in run.partitions]:
        # the probe already fell back to the default partition; its own finding is replaced by doctor's
        run.findings = [f for f in run.findings if f.name != "partition"]
    return run, check_profile(profile, run)


def preflight_findings(checks: list[PreflightCheck]) -> list[Finding]:
    """Preflight checks of a recipe as doctor findings; one that could not run is a note, not an error."""
    out: list[Finding] = []
    for c in checks:
        name = f"preflight {c.name}"
        if c.ok is None:
            out.append(Finding.note(name, c.message, c.evidence or "not checked", fix=c.fix))
        elif c.ok:
            out.append(Finding.good(name, c.message, c.evidence or "what Slurm reports"))
        else:
            out.append(Finding.bad(name, c.message, c.fix, evidence=c.evidence))
    return out
