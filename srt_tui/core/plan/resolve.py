"""Resolve once: profile + recipe + overrides become one immutable ResolvedJob.

Defaults, aliases, mounts, environment scopes, sbatch directives and the GPU exporter are decided
here; nothing downstream re-reads files, the profile or the environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from srt_tui.core import placeholders as ph
from srt_tui.core.engines import get_engine
from srt_tui.core.engines.base import LAUNCH_MPI
from srt_tui.core.errors import ConfigError, Problem, did_you_mean
from srt_tui.core.frontends.dynamo import WHEELHOUSE, wheel_env
from srt_tui.core.frontends.routers import resolve_router
from srt_tui.core.spec.aliases import CONTAINER_LITERAL
from srt_tui.core.spec.job_size import JobSize, RoleShape, gpus_per_worker, nodes_for, worker_nodes_of
from srt_tui.core.spec.profile import DCGM_EXPORTER, HealthCheck, LoadedProfile, Profile
from srt_tui.core.spec.recipe import ROLES, Recipe, RecipeSource, Role, RoleSpec
from srt_tui.core.spec.resolved import Mount, ResolvedJob, topology_of
from srt_tui.core.spec.secrets import looks_secret, secret_names
from srt_tui.core.spec.slurm_values import mount_problem
from srt_tui.core.spec.topology_string import TopologySpec, parse_topology, rename_for

_LITERAL_PATH = re.compile(r"^(/|\./|\.\./|~|hf:)")


def _alias(
    value: str, table: dict[str, str] | None, field_name: str, kind: str, literal: re.Pattern[str]
) -> tuple[str, Problem | None]:
    """An alias resolved through the profile; an unknown one is used literally with a warning, as srtctl does."""
    table = table or {}
    if value in table:
        return table[value], None
    if value.startswith(("$", "~")):  # srtctl expands variables and ~ in paths
        expanded = os.path.expanduser(os.path.expandvars(value))
        if "$" not in expanded:
            return expanded, None
        return value, Problem(
            field=field_name,
            message=f"`{value}` names an environment variable that is not set here",
            hint="export it before running srt-tui, or write the path out",
            severity="warning",
        )
    if literal.search(value):
        return value, None
    hint = (
        did_you_mean(value, table) or f"add `{value}: <path>` under `{kind}:` in the profile, or give an absolute path"
    )
    return value, Problem(
        field=field_name,
        message=f"`{value}` is not a {kind} alias of this profile; it is used as written",
        hint=hint + " (`srt-tui doctor -f RECIPE` checks the paths)",
        severity="warning",
    )


def apply_topology(recipe: Recipe, topo: TopologySpec, gpn: int) -> Recipe:
    """Change role worker counts, keeping GPUs per worker; node counts follow."""
    current = topology_of(recipe)
    if topo.disaggregated != current.disaggregated:
        want = "aggregated" if not topo.disaggregated else "prefill/decode"
        have = "aggregated" if not current.disaggregated else "prefill/decode"
        raise ConfigError(
            [
                Problem(
                    field="--topology",
                    message=f"`{topo}` is {want} but the recipe defines {have} roles",
                    hint=f"pick a topology like `{current}`, or use a recipe with {want} roles",
                )
            ]
        )
    roles = dict(recipe.roles)
    spread = recipe.resources.spread_workers
    prefill_g = gpus_per_worker(roles["prefill"], gpn) if "prefill" in roles else None
    for role, count in (("prefill", topo.prefill), ("decode", topo.decode), ("agg", topo.agg)):
        spec = roles.get(role)  # type: ignore[call-overload]
        if spec is None or count == 0:
            continue
        g = gpus_per_worker(spec, gpn, prefill_g if role == "decode" else None)
        nodes: int | str = "colocate" if spec.nodes == "colocate" else nodes_for(count, g, gpn, spread)
        roles[role] = spec.model_copy(update={"workers": count, "gpus": g, "nodes": nodes})  # type: ignore[index]
    return with_roles(recipe, roles)


#: flags of a prefill or decode worker alone (SGLang's transfer backend and IB device, …): an aggregated worker moves
#: no KV between workers, and the engine writes the worker's own mode (`--disaggregation-mode`) itself
PD_ONLY_PREFIX = "disaggregation-"


def aggregated_of(recipe: Recipe, gpn: int) -> Recipe:
    """A prefill/decode recipe as an aggregated one on the same GPUs (the Topology step's `agg` preset): its workers'
    GPUs shared out among agg workers of the smaller of the two roles' worker sizes (decode's when equal), each with
    that role's env and args less the P/D-only `disaggregation-*` ones, so the nodes and GPUs held stay the same (a
    2P1D of 2×4 + 1×8 GPUs: four agg workers of 4 GPUs on its 2 nodes). A recipe already aggregated is returned as
    it is."""
    roles = recipe.roles
    if "agg" in roles or "decode" not in roles:
        return recipe
    decode, prefill = roles["decode"], roles.get("prefill")
    prefill_g = gpus_per_worker(prefill, gpn) if prefill is not None else None
    decode_g = gpus_per_worker(decode, gpn, prefill_g)
    like, g = (prefill, prefill_g) if prefill is not None and prefill_g and prefill_g < decode_g else (decode, decode_g)
    held = decode.workers * decode_g + (prefill.workers * prefill_g if prefill is not None and prefill_g else 0)
    workers = held // g if held % g == 0 else decode.workers + (prefill.workers if prefill is not None else 0)
    args = {k: v for k, v in like.args.items() if not k.startswith(PD_ONLY_PREFIX)}
    nodes = nodes_for(workers, g, gpn, recipe.resources.spread_workers)
    agg = like.model_copy(update={"workers": workers, "gpus": g, "nodes": nodes, "args": args})
    return with_roles(recipe, {"agg": agg})


def with_roles(recipe: Recipe, roles: Mapping[Role, RoleSpec]) -> Recipe:
    """The recipe with new roles; a name that spells the old topology follows the new one."""
    changed = recipe.model_copy(update={"roles": dict(roles)})
    name = rename_for(recipe.name, topology_of(recipe), topology_of(changed))
    return changed if name == recipe.name else changed.model_copy(update={"name": name})


def _shapes(recipe: Recipe, gpn: int) -> tuple[RoleShape, ...]:
    """Each role's shape on nodes of ``gpn`` GPUs (the arithmetic the recipe list checks `max_nodes` with)."""
    return JobSize.of(recipe).shapes(gpn)


#: worker processes one job may have: srtctl's port plan gives process k the ports 5200+k (KV events) and
#: 5400+k (NIXL) on its node (core/plan/topology.py), which would meet from k = 200 on
MAX_PROCESSES = 200


def _processes_of(shape: RoleShape, gpn: int) -> int:
    """Worker processes of a role: one per node each of its workers spans."""
    return shape.workers * max(1, -(-shape.gpus // gpn))


def _nodes_of(shape: RoleShape) -> int:
    """Nodes a role asks for (0 when colocated)."""
    return shape.nodes


def _blamed(shapes: tuple[RoleShape, ...], count: Callable[[RoleShape], int], limit: int, given: bool) -> str:
    """The field a job over ``limit`` is blamed on: `--topology` when one was given, else the role that is over it
    alone (the one that needs most), else the roles as a whole (op11: decode set to 999 nodes in the Topology step
    was blamed on `roles.prefill`, the role with the most GPUs)."""
    if given or not shapes:
        return "--topology"
    over = [s for s in shapes if count(s) > limit]
    return f"roles.{max(over, key=count).role}" if over else "roles"


def _each(shapes: tuple[RoleShape, ...], count: Callable[[RoleShape], int], unit: str) -> str:
    """What each role takes, most first (`decode takes 999 nodes, prefill 2; `), '' when none takes any."""
    taking = sorted((s for s in shapes if count(s)), key=count, reverse=True)
    if not taking:
        return ""
    rest = "".join(f", {s.role} {count(s)}" for s in taking[1:])
    return f"{taking[0].role} takes {count(taking[0])} {unit}{rest}; "


def _check_size(shapes: tuple[RoleShape, ...], gpn: int, reserved: int, profile: Profile, given: bool) -> None:
    """Refuse a job larger than the cluster or the port plan from its shape alone (arithmetic, no allocation), so
    `-t 99999P1D` is answered at once instead of after planning 99999 workers. The field is the role that alone does
    not fit, else the roles together, and the fix says what each role takes (``given``: a `--topology` was asked)."""
    processes = sum(_processes_of(s, gpn) for s in shapes)
    nodes = reserved + worker_nodes_of(shapes)
    if profile.max_nodes is not None and nodes > profile.max_nodes:
        infra = "etcd/NATS takes 1 more; " if reserved else ""
        raise ConfigError(
            [
                Problem(
                    # a dedicated etcd/NATS node takes one of the cluster's nodes
                    field=_blamed(shapes, _nodes_of, profile.max_nodes - reserved, given),
                    # short enough for a Topology preset's line (40 columns) to keep `max_nodes`
                    message=f"this job needs {nodes} nodes; max_nodes is {profile.max_nodes}",
                    hint=f"{_each(shapes, _nodes_of, 'nodes')}{infra}pick a smaller topology or fewer GPUs per "
                    "worker; the profile's max_nodes is the cluster's node count",
                )
            ]
        )
    if processes > MAX_PROCESSES:

        def count(s: RoleShape) -> int:
            return _processes_of(s, gpn)

        raise ConfigError(
            [
                Problem(
                    field=_blamed(shapes, count, MAX_PROCESSES, given),
                    message=f"this job would start {processes} worker processes; srt-tui's port plan "
                    f"gives at most {MAX_PROCESSES} their own ports",
                    hint=f"{_each(shapes, count, 'processes')}pick a smaller topology (fewer workers, or more GPUs "
                    "per worker)",
                )
            ]
        )


def _directives(
    profile: Profile,
    recipe: Recipe,
    nodes: int,
    gpn: int,
    account: str | None,
    partition: str | None,
    time_limit: str,
) -> tuple[tuple[str, str | None], ...]:
    # one task per node, or one per GPU when the engine starts its workers over MPI (srtctl's TRT-LLM rule)
    per_node = gpn if get_engine(recipe.engine.type).launch_style == LAUNCH_MPI else 1
    out: list[tuple[str, str | None]] = [
        ("job-name", recipe.name),
        ("nodes", str(nodes)),
        ("ntasks", str(nodes * per_node)),
        ("ntasks-per-node", str(per_node)),
    ]
    if profile.use_gpus_per_node_directive:
        out.append(("gpus-per-node", str(gpn)))
    if profile.use_segment_sbatch_directive:
        out.append(("segment", str(nodes)))
    if profile.use_exclusive_sbatch_directive:
        out.append(("exclusive", None))
    if account:
        out.append(("account", account))
    out.append(("time", time_limit))
    if partition:
        out.append(("partition", partition))
    merged: dict[str, str | None] = {
        k: (None if v is None or v == "" else str(v)) for k, v in (profile.default_sbatch_directives or {}).items()
    }
    for k, v in recipe.sbatch_directives.items():
        if v is False:  # `exclusive: false` means no directive, as in srun_options
            merged.pop(k, None)
            continue
        merged[k] = None if v is None or v == "" or v is True else str(v)
    managed = {k for k, _ in out}
    out.extend((k, v) for k, v in merged.items() if k not in managed)
    out = [(k, merged[k]) if k in merged and k in managed else (k, v) for k, v in out]
    return tuple(out)


def _mounts(profile: Profile, recipe: Recipe, model_path: str, container: str | None, gpn: int) -> tuple[Mount, ...]:
    if profile.container_runtime == "none":
        return ()
    mounts: dict[str, Mount] = {}
    mounts["<log_dir>"] = Mount("<log_dir>", "/logs", "built-in")
    if not model_path.startswith("hf:"):
        mounts[model_path] = Mount(model_path, "/model", "built-in", readonly=True)
    if profile.srtctl_root:
        configs = _srtctl_configs(profile.srtctl_root)
        if configs is not None:
            mounts[configs] = Mount(configs, "/configs", "built-in", readonly=True)
        wheels = _srtctl_wheelhouse(profile.srtctl_root)
        if wheels is not None:
            mounts[wheels] = Mount(wheels, WHEELHOUSE, "built-in", readonly=True)
    for key, cont in (profile.default_mounts or {}).items():
        host = _host_path(key, profile.srtctl_root, user=False)
        _check_mount(host, f"profile.default_mounts.{key}")
        mounts[host] = Mount(host, cont, "profile")
    for index, item in enumerate(recipe.extra_mount):
        parts = item.split(":")
        if len(parts) < 2 or len(parts) > 3 or (len(parts) == 3 and parts[2] not in ("ro", "rw")):
            raise ConfigError(
                [
                    Problem(
                        field=f"extra_mount.{index}",
                        message=f"`{item}` is not host:container[:ro]",
                        hint="write e.g. /data:/data:ro",
                    )
                ]
            )
        host = _host_path(parts[0], profile.srtctl_root, user=True)
        _check_mount(host, f"extra_mount.{index}")
        mounts[host] = Mount(host, parts[1], "recipe", readonly=len(parts) > 2 and parts[2] == "ro")
    fill = _mount_placeholders(recipe, model_path, container, gpn)
    for key, value in recipe.container_mounts.items():
        host, cont = fill(key), fill(value)
        found = mount_problem(host) or mount_problem(cont)  # a placeholder or variable may add a `,` or `:`
        if found:
            raise ConfigError([Problem(field=f"container_mounts.{key}", message=found[0], hint=found[1])])
        mounts[host] = Mount(host, cont, "recipe")
    return tuple(mounts.values())


def _srtctl_configs(root: str) -> str | None:
    """srtctl's rule for its `configs/` (setup scripts, patches): mounted at /configs, by its resolved path,
    when `<srtctl_root>/configs` exists (core/runtime.py); None when it does not."""
    configs = Path(root) / "configs"
    return str(configs.resolve()) if configs.is_dir() else None


def _srtctl_wheelhouse(root: str) -> str | None:
    """srtctl's rule for its staged ai-dynamo wheels: `<srtctl_root>/wheelhouse/dynamo`, by its resolved path, is
    mounted at /srtctl-wheels whenever it exists, whatever the job (core/runtime.py); None when it does not."""
    wheels = Path(root) / "wheelhouse" / "dynamo"
    return str(wheels.resolve()) if wheels.is_dir() else None


def _host_path(text: str, root: str | None, user: bool) -> str:
    """A mount's host side as srtctl names it (core/runtime.py): variables expanded (and `~` for a recipe's
    `extra_mount`), then resolved, relative to srtctl's working directory, its checkout; pyxis expands nothing."""
    path = Path(os.path.expandvars(text))
    path = path.expanduser() if user else path
    return str((Path(root) / path if root and not path.is_absolute() else path).resolve())


def _check_mount(host: str, field: str) -> None:
    """A host path whose variables added a `,` or `:` would split pyxis's --container-mounts."""
    found = mount_problem(host)
    if found:
        raise ConfigError([Problem(field=field, message=found[0], hint=found[1])])


def _mount_placeholders(recipe: Recipe, model_path: str, image: str | None, gpn: int) -> Callable[[str], str]:
    """srtctl's `container_mounts` placeholders and environment variables, as values the job fills in."""
    values = {
        "{job_id}": ph.JOB_ID,
        "{run_name}": f"{recipe.name}_{ph.JOB_ID}",
        "{log_dir}": "<job_dir>/logs",
        "{head_node_ip}": ph.ip(0),
        "{model_path}": model_path,
        "{container_image}": image or "",
        "{gpus_per_node}": str(gpn),
    }

    def fill(text: str) -> str:
        return os.path.expanduser(os.path.expandvars(ph.fill_marks(text, values)))

    return fill


def _reads_model(recipe: Recipe, shapes: tuple[RoleShape, ...]) -> bool:
    """Do the job's workers read `model.path` (its engine, started as its router starts workers)?"""
    router = resolve_router(recipe.frontend.type, topology_of(recipe).disaggregated, sum(s.workers for s in shapes))
    return get_engine(recipe.engine.type).reads_model(router.worker_launch)


def resolve(
    loaded: LoadedProfile,
    recipe: Recipe,
    source: RecipeSource | None = None,
    topology: str | TopologySpec | None = None,
) -> ResolvedJob:
    """Merge profile defaults into the recipe, apply a topology override, resolve aliases."""
    profile = loaded.profile
    gpn = recipe.resources.gpus_per_node or profile.gpus_per_node or 8
    if topology is not None:
        topo = parse_topology(topology) if isinstance(topology, str) else topology
        recipe = apply_topology(recipe, topo, gpn)
    problems: list[Problem] = []
    notes: list[Problem] = []
    model_path, model_note = _alias(recipe.model.path, profile.model_paths, "model.path", "model_paths", _LITERAL_PATH)
    if not model_path.startswith("hf:") and "$" not in model_path:  # srtctl mounts it resolved (core/runtime.py)
        model_path = _host_path(model_path, profile.srtctl_root, user=False)
    mount = mount_problem(model_path) if profile.container_runtime == "pyxis" and model_path[:3] != "hf:" else None
    if mount is not None:  # a `$VAR` the path named may hold a `,` or `:`, and pyxis mounts the model
        problems.append(Problem(field="model.path", message=mount[0], hint=mount[1]))
    container: str | None = None
    if recipe.model.container and profile.container_runtime != "none":
        container, note = _alias(
            recipe.model.container, profile.containers, "model.container", "containers", CONTAINER_LITERAL
        )
        notes += [note] if note else []
        if container.startswith(("/", "./")) and "$" not in container:  # srtctl: a file path, resolved
            container = _host_path(container, profile.srtctl_root, user=False)
    elif profile.container_runtime == "pyxis":
        problems.append(
            Problem(
                field="model.container",
                message="a container image is required",
                hint="set model.container to an image, .sqsh path or profile alias",
            )
        )
    if problems:
        raise ConfigError(problems)
    shapes = _shapes(recipe, gpn)
    # a worker that reads no model (the mocker served directly: the path is only the name it serves) needs no alias
    if model_note is not None and _reads_model(recipe, shapes):
        notes.insert(0, model_note)
    reserved = 1 if recipe.infra.etcd_nats_dedicated_node else 0
    _check_size(shapes, gpn, reserved, profile, topology is not None)
    nodes = reserved + worker_nodes_of(shapes)
    account = recipe.slurm.account or profile.default_account
    partition = recipe.slurm.partition or profile.default_partition
    time_limit = recipe.slurm.time_limit or profile.default_time_limit or "01:00:00"
    # srtctl's global environment: the `dynamo.wheel` variables, then the recipe's (core/runtime.py)
    global_env = (*wheel_env(recipe.dynamo), *recipe.environment.items())
    env_scopes: list[tuple[str, tuple[tuple[str, str], ...]]] = [("global", global_env)]
    for role in ROLES:
        spec = recipe.roles.get(role)
        if spec is not None and spec.workers > 0:
            env_scopes.append((role, tuple(spec.env.items())))
    env_scopes.append(("frontend", tuple(recipe.frontend.env.items())))
    env_scopes.append(("benchmark", tuple((recipe.benchmark.env or {}).items())))
    if recipe.telemetry is not None and "dcgm_exporter" in recipe.telemetry.model_fields_set:
        exporter, exporter_source = recipe.telemetry.dcgm_exporter, "recipe"
    elif "default_gpu_exporter" in profile.model_fields_set:
        exporter, exporter_source = profile.default_gpu_exporter, "profile"
    else:
        exporter, exporter_source = DCGM_EXPORTER, "default"
    if exporter is not None and exporter.env and recipe.telemetry is not None and recipe.telemetry.enabled:
        env_scopes.append(("telemetry", tuple(sorted(exporter.env.items()))))
    srun = tuple(
        (k, None if v is None or v == "" or v is True else str(v))
        for k, v in recipe.srun_options.items()
        if v is not False
    )
    in_container = profile.container_runtime != "none"
    secrets = secret_names(profile.secret_env)
    return ResolvedJob(
        recipe=recipe,
        profile=profile,
        profile_name=loaded.name,
        profile_path=loaded.path,
        recipe_path=source.path if source else None,
        variant=source.variant if source else None,
        topology=topology_of(recipe),
        shapes=shapes,
        gpus_per_node=gpn,
        visible_devices_env=profile.visible_devices_env,
        interface=profile.interface,
        container_runtime=profile.container_runtime,
        model_path=model_path,
        model_in_step="/model"
        if in_container and not model_path.startswith("hf:")
        else (model_path[3:] if model_path.startswith("hf:") else model_path),
        container_image=container,
        account=account,
        partition=partition,
        time_limit=time_limit,
        directives=_directives(profile, recipe, nodes, gpn, account, partition, time_limit),
        mounts=_mounts(profile, recipe, model_path, container, gpn),
        env_scopes=tuple(env_scopes),
        srun_options=srun,
        gpu_exporter=exporter,
        exporter_source=exporter_source,
        health_check=recipe.health_check or profile.default_health_check or HealthCheck(),
        output_dir=profile.output_dir,
        bash_preamble=profile.default_bash_preamble,
        secret_names=secrets,
        setup_script=_setup_script(recipe, profile),
        warnings=(*notes, *_profile_keys_without_effect(profile), *_undeclared_secrets(env_scopes, secrets)),
        reserved_nodes=reserved,
        nginx_image=(profile.containers or {}).get(recipe.frontend.nginx_container, recipe.frontend.nginx_container)
        if profile.container_runtime == "pyxis"
        else None,
        nginx_raise_ulimit=bool(
            recipe.frontend.nginx_raise_ulimit
            if recipe.frontend.nginx_raise_ulimit is not None
            else profile.nginx_raise_ulimit
        ),
    )


#: srtslurm.yaml keys srt-tui reads but does not act on, and what that means for the job
_PROFILE_NO_EFFECT = {
    "cloud": "srtctl does not use it when launching either",
    "reporting": "srt-tui posts no status-API, S3 or AI-analysis reports; `srt-tui status` follows the job",
    "use_het_jobs": "srt-tui submits one homogeneous job (prefill and decode share the allocation)",
    "default_host_setup": "host-side setup commands are not run; do them in default_bash_preamble or on the nodes",
    "git_http_version": "srt-tui installs nothing from git",
    "record_launch_plan": "plan.json and the launch script already record every step",
    "local_docker_args": "srt-tui's local launcher runs processes, not docker",
    "telemetry": "srtctl's live-metrics snapshotter is not run; the Monitor reads metrics live",
}


def _profile_keys_without_effect(profile: Profile) -> list[Problem]:
    """Profile keys srt-tui accepts for compatibility but cannot act on: said once per job, never dropped silently."""
    return [
        Problem(f"profile.{key}", "has no effect in srt-tui", why, severity="warning")
        for key, why in _PROFILE_NO_EFFECT.items()
        if key in profile.model_fields_set and getattr(profile, key) not in (None, {}, [])
    ]


def _setup_script(recipe: Recipe, profile: Profile) -> tuple[str, ...]:
    """Where the steps find `setup_script`: srtctl's configs/ directory, then its patches/ folder."""
    name = recipe.setup_script
    if not name:
        return ()
    if not profile.srtctl_root:
        raise ConfigError(
            [
                Problem(
                    field="setup_script",
                    message=f"`{name}` lives in srtctl's configs/ directory; the profile does not say where",
                    hint="set srtctl_root in the profile (the checkout whose configs/ holds the script)",
                )
            ]
        )
    base = "/configs" if profile.container_runtime != "none" else f"{profile.srtctl_root.rstrip('/')}/configs"
    return (f"{base}/{name}", f"{base}/patches/{name}")


def _undeclared_secrets(
    env_scopes: list[tuple[str, tuple[tuple[str, str], ...]]], names: frozenset[str]
) -> tuple[Problem, ...]:
    """Variables that read like credentials but are not declared: they would appear in the script."""
    out = []
    for scope, pairs in env_scopes:
        for key, _ in pairs:
            if looks_secret(key) and key not in names:
                out.append(
                    Problem(
                        field=f"env.{scope}.{key}",
                        message="looks like a credential but is not a declared secret, so its value is "
                        "written into the launch script",
                        hint=f"add `{key}` to the profile's `secret_env` list to keep it in the 0600 secrets file",
                        severity="warning",
                    )
                )
    return tuple(out)
