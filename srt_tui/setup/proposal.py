"""A profile proposed from probe results: every key carries the evidence behind it.

The operator supplies what cannot be probed (account, time limit, output dir, aliases); the result is
validated by the Profile model and written as YAML with the evidence as comments.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from srt_tui.core.spec.profile import Profile
from srt_tui.setup.gpu_tools import tool_named
from srt_tui.setup.node_script import Interface
from srt_tui.setup.probes import ProbeRun

GpuRequest = Literal["auto", "directive", "gres"]
Runtime = Literal["auto", "pyxis", "none"]

#: Interface name prefixes that are never the node's data-plane NIC.
VIRTUAL_PREFIXES: tuple[str, ...] = ("lo", "docker", "veth", "br-", "virbr", "cni", "flannel", "cali", "tun", "tap")
#: Preferred NIC name prefixes when several carry a private IPv4 (fast fabrics first).
PREFERRED_PREFIXES: tuple[str, ...] = ("ib", "hsn", "enp", "ens", "eth", "bond")


@dataclass(frozen=True)
class OperatorChoices:
    """What the operator decides because no probe can: names, account, limits, aliases, overrides."""

    name: str = "my-cluster"
    account: str | None = None
    time_limit: str | None = None
    #: nodes one job may take (None: the probed partition's node count)
    max_nodes: int | None = None
    output_dir: str | None = None
    model_paths: dict[str, str] = field(default_factory=dict)
    containers: dict[str, str] = field(default_factory=dict)
    interface: str | None = None
    gpu_request: GpuRequest = "auto"
    container_runtime: Runtime = "auto"


@dataclass(frozen=True)
class ProposedKey:
    """One profile key: value, why, and whether it is written or only explained (a default that holds)."""

    key: str
    value: Any
    evidence: str
    #: `kept`: from the profile file being overwritten, for a key this probe run could not learn
    source: Literal["probe", "operator", "default", "kept"] = "probe"
    written: bool = True


@dataclass
class Proposal:
    """The proposed profile: keys with evidence, problems found while building it, the validated model."""

    keys: list[ProposedKey]
    problems: list[str]
    profile: Profile | None

    def data(self) -> dict[str, Any]:
        """The profile mapping that gets written."""
        return {k.key: k.value for k in self.keys if k.written}

    def to_yaml(self, header: str = "") -> str:
        """YAML with each key's evidence as a comment above it."""
        lines = [f"# {ln}" for ln in header.splitlines()] if header else []
        for k in self.keys:
            lines.extend(f"# {ln}" for ln in _wrap(f"{k.key}: {k.evidence}"))
            if not k.written:
                lines.append(f"# {k.key}: {_inline(k.value)}  (default holds; not written)")
                continue
            text = yaml.safe_dump({k.key: k.value}, sort_keys=False, default_flow_style=False, width=100)
            lines.extend(text.rstrip("\n").splitlines())
        return "\n".join(lines) + "\n"

    def key(self, name: str) -> ProposedKey | None:
        """The proposed key called ``name``."""
        return next((k for k in self.keys if k.key == name), None)


def _inline(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=1000).strip().removesuffix("...").strip()


def _wrap(text: str, width: int = 98) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for word in words:
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    return [*lines, cur] if cur else lines


def pick_interface(interfaces: tuple[Interface, ...]) -> tuple[Interface | None, str]:
    """The NIC with a private IPv4 that is not loopback/virtual, preferring fabric names; and why."""
    real = [i for i in interfaces if not i.name.startswith(VIRTUAL_PREFIXES) and i.ipv4]
    private = [i for i in real if i.private_ipv4]
    pool = private or real

    def rank(iface: Interface) -> tuple[int, str]:
        idx = next((n for n, p in enumerate(PREFERRED_PREFIXES) if iface.name.startswith(p)), len(PREFERRED_PREFIXES))
        return (idx, iface.name)

    if not pool:
        return None, "no interface with an IPv4 address besides loopback/virtual ones"
    chosen = sorted(pool, key=rank)[0]
    kind = "a private IPv4" if private else "an IPv4 (none is private)"
    others = [f"{i.name} {','.join(i.ipv4)}" for i in interfaces if i.ipv4 and i is not chosen]
    seen = f"; also seen: {'; '.join(others)}" if others else ""
    return chosen, f"{chosen.name} carries {kind} ({', '.join(chosen.ipv4)}) and is not loopback/virtual{seen}"


def _time_limit(run: ProbeRun, choices: OperatorChoices) -> ProposedKey:
    if choices.time_limit:
        return ProposedKey("default_time_limit", choices.time_limit, "operator choice", "operator")
    part = run.partition_info()
    limit = 4 * 60
    if part is not None and part.max_time is not None and part.max_time < limit:
        limit = part.max_time
        why = f"partition {part.name} allows at most {part.max_time} min (operator may change)"
    else:
        allowed = "no limit" if part is None or part.max_time is None else f"{part.max_time} min"
        why = f"a 4-hour default; partition {run.partition} allows {allowed} (operator may change)"
    return ProposedKey("default_time_limit", f"{limit // 60:02d}:{limit % 60:02d}:00", why, "default")


#: what `max_nodes`'s comment says of srtctl: the key is srt-tui's own
MAX_NODES_NOTE = "srt-tui's key (srtctl has none); the most nodes a job may take: a topology needing more is refused"


def _max_nodes(run: ProbeRun, choices: OperatorChoices) -> ProposedKey | None:
    """The cluster's node count, so the wizard refuses a topology larger than the cluster at once (not only `apply`'s
    preflight): the operator's number, else the probed partition's size as preflight reads it (TotalNodes)."""
    if choices.max_nodes is not None:
        return ProposedKey("max_nodes", choices.max_nodes, f"operator choice; {MAX_NODES_NOTE}", "operator")
    part = run.partition_info()
    size = (part.total_nodes or len(part.nodes)) if part is not None else 0
    if part is None or size < 1:
        return None
    why = f"sinfo/scontrol: partition {part.name} has {size} node{'s' if size != 1 else ''} (TotalNodes)"
    return ProposedKey("max_nodes", size, f"{why}; {MAX_NODES_NOTE} (operator may change)")


#: the keys only the compute node's probe learns (or GRES, which may not say): an interrupted run keeps them
NODE_KEYS: tuple[str, ...] = (
    "gpus_per_node",
    "default_gpu_type",
    "network_interface",
    "visible_devices_env",
    "container_runtime",
    "default_mounts",
    "default_gpu_exporter",
)


def build_proposal(
    run: ProbeRun, choices: OperatorChoices, kept: dict[str, Any] | None = None, kept_from: str = ""
) -> Proposal:
    """Turn probe results plus operator choices into profile keys with evidence, then validate them.

    ``kept`` is the profile file about to be overwritten (``kept_from`` names it): when the compute node was not
    probed (the probe job was stopped while pending), its node keys are kept rather than silently dropped (operator
    pass: `network_interface`, `container_runtime: none` and `default_gpu_exporter: null` vanished, and the profile
    then needed a container image)."""
    keys: list[ProposedKey] = []
    problems: list[str] = []
    node = run.node
    where = f"on {node.node}" if node else ""
    add = keys.append
    previous = kept if node is None and kept else {}

    def keep(name: str) -> ProposedKey | None:
        """The key as the existing file has it, when this run could not learn it."""
        if name not in previous or name not in NODE_KEYS:
            return None
        why = f"kept from {kept_from or 'the existing file'}: the compute node was not probed this time"
        return ProposedKey(name, previous[name], why, "kept")

    cluster_src = (
        f"Slurm ClusterName is {run.cluster_name}"
        if run.cluster_name
        else "Slurm gave no ClusterName: the profile's name stands in"
    )
    # each key's evidence is its comment in the file (this one read `operator name`, which told nothing)
    about = "what the Profile step shows of this profile; say what sets this cluster apart"
    # short, one line in the review table at 80 columns (the profile's name beside it said it again, and a longer
    # name wrapped it): the operator replaces it with what sets this cluster apart
    add(ProposedKey("description", "probed by srt-tui setup", about, "default"))
    add(ProposedKey("cluster", run.cluster_name or choices.name, cluster_src))
    if choices.account:
        add(ProposedKey("default_account", choices.account, "operator choice", "operator"))
    elif run.account:
        add(ProposedKey("default_account", run.account, "sacctmgr: the user's first association"))
    if run.partition:
        add(ProposedKey("default_partition", run.partition, f"sinfo: {run.partition_why}"))
    else:
        problems.append("no partition found: name the partition jobs should use")
    add(_time_limit(run, choices))

    # GPUs: GRES from Slurm first, the GPU tool's count as a fallback
    nodes = run.partition_nodes()
    counts = sorted({n.gpus for n in nodes if n.gpus})
    tool = node.gpu_tool if node else None
    tool_row = tool_named(tool.tool) if tool else None
    gpus = counts[0] if counts else (len(tool.gpus) if tool else 0)
    if counts:
        add(ProposedKey("gpus_per_node", gpus, f"GRES of partition {run.partition} nodes: {nodes[0].gres}"))
    elif tool:
        add(ProposedKey("gpus_per_node", gpus, f"no GPU GRES; {tool.tool} listed {gpus} GPUs {where}"))
    elif (kept_gpus := keep("gpus_per_node")) is not None:
        add(kept_gpus)
    else:
        problems.append("no GPU count: neither GRES nor a GPU tool reported GPUs")
    max_nodes = _max_nodes(run, choices)
    if max_nodes is not None:
        add(max_nodes)
    gpu_types = {n.gpu_type for n in nodes if n.gpu_type}
    if len(gpu_types) == 1:
        add(ProposedKey("default_gpu_type", gpu_types.pop(), "GRES type of the partition's nodes"))
    elif (kept_type := keep("default_gpu_type")) is not None:
        add(kept_type)

    # interface
    if choices.interface:
        add(ProposedKey("network_interface", choices.interface, "operator choice", "operator"))
    elif node is not None:
        iface, why = pick_interface(node.interfaces)
        if iface is not None:
            add(ProposedKey("network_interface", iface.name, f"ip -j addr {where}: {why}"))
        else:
            problems.append(f"network_interface: {why} {where}")
    elif (kept_iface := keep("network_interface")) is not None:
        add(kept_iface)

    # visibility mask, exporter and device mounts come from the GPU tool's row in the table
    if tool_row is not None and tool is not None:
        env = tool_row.visible_devices_env
        because = f"{tool.tool} answered {where} ({len(tool.gpus)} × {tool.gpus[0].name}); {tool_row.why_mask}"
        add(ProposedKey("visible_devices_env", env, because, written=env != "CUDA_VISIBLE_DEVICES"))
    elif (kept_env := keep("visible_devices_env")) is not None:
        add(kept_env)
    else:
        add(
            ProposedKey(
                "visible_devices_env",
                "CUDA_VISIBLE_DEVICES",
                "no GPU tool answered on the node, so the NVIDIA default holds (check after loading drivers)",
                "default",
                written=False,
            )
        )

    # GPU request directive
    if choices.gpu_request == "directive" or (choices.gpu_request == "auto" and run.gpus_per_node_directive):
        why = run.directive_evidence if choices.gpu_request == "auto" else "operator choice"
        add(
            ProposedKey(
                "use_gpus_per_node_directive", True, why, "probe" if choices.gpu_request == "auto" else "operator"
            )
        )
    elif choices.gpu_request == "gres" or run.gres_directive:
        why = run.directive_evidence if choices.gpu_request == "auto" else "operator choice"
        add(ProposedKey("use_gpus_per_node_directive", False, f"{why}: request GPUs through GRES instead"))
        add(ProposedKey("default_sbatch_directives", {"gres": f"gpu:{gpus or 1}"}, f"GRES escape hatch ({why})"))
    else:
        problems.append(f"no working GPU request directive: {run.directive_evidence or 'not probed'}")
    if run.segment_directive is not None:
        seg = "accepted" if run.segment_directive else "rejected"
        add(ProposedKey("use_segment_sbatch_directive", run.segment_directive, f"sbatch --test-only {seg} --segment"))

    # MPI plugin: the profile's default (pmix, as srtctl) only where it loads; else one that does
    if run.mpi is not None:
        best = run.mpi.best
        add(
            ProposedKey(
                "mpi_plugin", best, f"`srun --mpi={best}` for MPI steps: {run.mpi.evidence()}", written=best != "pmix"
            )
        )

    # container runtime
    if choices.container_runtime != "auto":
        runtime = choices.container_runtime
        add(ProposedKey("container_runtime", runtime, "operator choice", "operator", written=runtime != "pyxis"))
    elif node is not None:
        runtime = "pyxis" if node.pyxis else "none"
        why = "srun --help lists --container-image" if node.pyxis else "srun --help has no --container-image"
        add(ProposedKey("container_runtime", runtime, f"{why} {where}", written=runtime != "pyxis"))
    elif (kept_runtime := keep("container_runtime")) is not None:
        add(kept_runtime)
        runtime = "none" if kept_runtime.value == "none" else "pyxis"
    else:
        runtime = "pyxis"

    if tool_row is not None and tool is not None and tool_row.device_mounts:
        seen = [f"{d} {'present' if node and node.devices.get(d) else 'absent'}" for d in tool_row.device_mounts]
        mounts = {d: d for d in tool_row.device_mounts}
        because = (
            f"{tool.tool} answered {where}; {tool_row.why_mounts}. Proposed from the tool, not from the device files "
            f"({'; '.join(seen)} {where})"
        )
        add(ProposedKey("default_mounts", mounts, because))
    elif (kept_mounts := keep("default_mounts")) is not None:
        add(kept_mounts)
    if runtime == "none":
        add(ProposedKey("default_gpu_exporter", None, "no container runtime: exporter containers cannot start"))
    elif tool_row is not None and tool_row.exporter is not None and tool is not None:
        add(
            ProposedKey(
                "default_gpu_exporter", tool_row.exporter, f"{tool.tool} answered {where}: its metrics exporter"
            )
        )
    elif (kept_exporter := keep("default_gpu_exporter")) is not None:
        add(kept_exporter)

    if choices.output_dir:
        add(ProposedKey("output_dir", choices.output_dir, "operator choice", "operator"))
    paths = {p.path: p for p in node.paths} if node else {}
    for key, mapping in (("model_paths", choices.model_paths), ("containers", choices.containers)):
        if not mapping:
            continue
        notes = []
        for alias, target in mapping.items():
            check = paths.get(target)
            if check is not None:
                notes.append(f"{alias}: {'exists' if check.exists else 'MISSING'} {where}")
                if not check.exists:
                    problems.append(f"{key}.{alias}: {target} does not exist {where}")
        add(
            ProposedKey(
                key, dict(mapping), "operator aliases" + (f" ({'; '.join(notes)})" if notes else ""), "operator"
            )
        )

    problems.extend(_validate_choices(choices))
    proposal = Proposal(keys, problems, None)
    try:
        proposal.profile = Profile.model_validate(proposal.data())
    except ValidationError as exc:
        for err in exc.errors():
            where_key = ".".join(str(p) for p in err["loc"])
            problems.append(f"{where_key}: {err['msg']}")
    return proposal


def _validate_choices(choices: OperatorChoices) -> list[str]:
    return [f"{key}: {message}" for key, message in _own_rules(choices)]


def _own_rules(choices: OperatorChoices) -> list[tuple[str, str]]:
    """Setup's own rules for the operator's choices, beside the profile model's: (choice, what is wrong)."""
    out: list[tuple[str, str]] = []
    # the time limit is the profile model's to check (Slurm's forms: `30`, `30:00`, `2:00:00`, `1-12`): a rule of
    # Setup's own refused `30:00` and said a second message beside the model's
    if choices.output_dir and not Path(choices.output_dir).is_absolute():
        out.append(("output_dir", f"`{choices.output_dir}` must be an absolute path on the shared file system"))
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", choices.name or ""):
        out.append(("name", f"`{choices.name}` must be a plain file name (letters, digits, . _ -)"))
    return out


#: the profile key each operator choice is written as (the profile model checks its value)
CHOICE_KEYS: tuple[tuple[str, str], ...] = (
    ("account", "default_account"),
    ("time_limit", "default_time_limit"),
    ("max_nodes", "max_nodes"),
    ("output_dir", "output_dir"),
    ("model_paths", "model_paths"),
    ("containers", "containers"),
    ("interface", "network_interface"),
)


def choice_problems(choices: OperatorChoices) -> list[tuple[str, str]]:
    """What is wrong with the operator's own choices, known before any probe: (the choice, with an alias after a dot
    (`model_paths.m`), and what is wrong). `setup --probe` refused a name like `../x` only once every probe, the
    probe job too, had run; these are checked first."""
    out = _own_rules(choices)
    data = {key: getattr(choices, attr) for attr, key in CHOICE_KEYS if getattr(choices, attr)}
    try:
        Profile.model_validate(data)
    except ValidationError as exc:
        attr_of = {key: attr for attr, key in CHOICE_KEYS}
        for err in exc.errors():
            head, *rest = (str(p) for p in err["loc"])
            out.append((".".join([attr_of.get(head, head), *rest]), err["msg"]))
    return out


def parse_aliases(items: list[str] | tuple[str, ...] | str) -> dict[str, str]:
    """``alias=value`` items (a list, or one comma-separated string) into a mapping; ValueError if malformed."""
    if isinstance(items, str):
        items = [p for p in (s.strip() for s in items.split(",")) if p]
    out: dict[str, str] = {}
    for item in items:
        alias, sep, value = item.partition("=")
        if not sep or not alias.strip() or not value.strip():
            raise ValueError(f"`{item}` is not alias=value")
        out[alias.strip()] = value.strip()
    return out


def write_proposal(proposal: Proposal, path: Path, header: str = "") -> Path:
    """Write the proposal's YAML (refusing an invalid one) and return the path."""
    if proposal.profile is None or proposal.problems:
        raise ValueError("the proposal has problems: " + "; ".join(proposal.problems))
    from srt_tui.core.owned import private_dir, write_private

    if not path.parent.is_dir():
        private_dir(path.parent, "config directory")  # 0700, whatever the umask
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    write_private(tmp, proposal.to_yaml(header))  # 0600, new, never through a link
    tmp.replace(path)
    return path
