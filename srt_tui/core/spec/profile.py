"""Cluster profile: srtctl's `srtslurm.yaml` keys plus the AMD fork's keys; strict, typed, discoverable.

The profile owns every hardware difference (visibility variable, GPU directive or GRES, exporter,
interface, mounts, container runtime); code never asks which vendor it is.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from srt_tui.core.errors import ConfigError, Problem, config_error, did_you_mean
from srt_tui.core.owned import check_dir, check_file
from srt_tui.core.paths import profile_dirs, user_config_dir
from srt_tui.core.spec.discovery import SRTSLURM_FILE, find_srtslurm
from srt_tui.core.spec.profile_order import DEMO_PROFILE, listing_key
from srt_tui.core.spec.slurm_values import (
    Account,
    EnvMap,
    EnvName,
    Image,
    Interface,
    ModelPath,
    MountPath,
    OptionKey,
    Partition,
    SlurmTime,
    check_directives,
    no_bool_for_number,
    refuse,
)
from srt_tui.core.spec.yamlio import load_yaml

DEFAULT_PROFILE = DEMO_PROFILE


class Strict(BaseModel):
    """Base for config models: unknown keys are errors, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_number(cls, value: Any, info: ValidationInfo) -> Any:
        """YAML's `true` is no count: `workers: true` would otherwise be read as 1."""
        field = cls.model_fields.get(info.field_name or "")
        if field is not None and no_bool_for_number(field.annotation, value):
            raise refuse("a boolean where a number is expected", "write the number, e.g. 1")
        return value


class GpuExporter(Strict):
    """A GPU metrics exporter started next to the workers (DCGM on NVIDIA, device-metrics-exporter on AMD)."""

    container_image: Image
    command: str | None = None
    port: int = Field(default=9401, ge=1, le=65535)
    kind: str = "dcgm"
    args: list[str] | None = None
    env: EnvMap | None = None
    gpu_labels: dict[str, str] | None = None
    gpu_metrics: dict[str, dict[str, str]] | None = None


@dataclass(frozen=True)
class ExporterKind:
    """What an exporter product implies when the profile does not say: how to start it and read it."""

    command: str | None
    args: tuple[str, ...]
    gpu_label: str
    metrics: dict[str, str]


#: `kind: dcgm` is NVIDIA's DCGM exporter; anything else (`custom`) names its command and metrics itself
EXPORTER_KINDS: dict[str, ExporterKind] = {
    "dcgm": ExporterKind(
        "dcgm-exporter",
        ("--address", "{host}:{port}"),
        "gpu",
        {"gpu_util": "DCGM_FI_DEV_GPU_UTIL", "power": "DCGM_FI_DEV_POWER_USAGE", "temperature": "DCGM_FI_DEV_GPU_TEMP"},
    ),
}
_CUSTOM = ExporterKind(None, (), "gpu", {})


def exporter_kind(exporter: GpuExporter) -> ExporterKind:
    """The defaults of this exporter's kind (a custom kind has none)."""
    return EXPORTER_KINDS.get(exporter.kind, _CUSTOM)


def exporter_argv(exporter: GpuExporter, host: str) -> tuple[str, ...] | None:
    """The exporter's command line, `{host}` and `{port}` filled in; None when nothing says what to run.

    Default arguments belong to the default command: a profile that names its own `command` gives
    its own `args` too.
    """
    kind = exporter_kind(exporter)
    if exporter.command:
        argv, args = shlex.split(exporter.command), tuple(exporter.args or ())
    elif kind.command:
        argv, args = [kind.command], tuple(exporter.args) if exporter.args is not None else kind.args
    else:
        return None
    fill = {"{host}": host, "{port}": str(exporter.port)}
    out = []
    for a in (*argv, *args):
        for key, value in fill.items():
            a = a.replace(key, value)
        out.append(a)
    return tuple(out)


def exporter_readout(exporter: GpuExporter) -> tuple[str, dict[str, str]]:
    """(label holding the GPU index, {gpu_util|power|temperature: metric name}) for whoever scrapes it."""
    kind = exporter_kind(exporter)
    label = (exporter.gpu_labels or {}).get("index") or kind.gpu_label
    metrics = dict(kind.metrics)
    for key, spec in (exporter.gpu_metrics or {}).items():
        if spec.get("metric"):
            metrics[key] = spec["metric"]
    return label, metrics


DCGM_EXPORTER = GpuExporter(
    container_image="nvcr.io#nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04", port=9401, kind="dcgm"
)


class HealthCheck(Strict):
    """How long and how often the job polls worker and router health."""

    max_attempts: int = Field(default=180, ge=1)
    interval_seconds: float = Field(default=10, gt=0)


class Profile(Strict):
    """One cluster's facts. Absent keys take srtctl's NVIDIA defaults."""

    description: str | None = None
    cluster: str | None = None
    default_account: Account | None = None
    default_partition: Partition | None = None
    default_time_limit: SlurmTime | None = None
    gpus_per_node: int | None = Field(default=None, ge=1)
    #: nodes of the cluster (or the most one job may take): a topology needing more is refused at once
    max_nodes: int | None = Field(default=None, ge=1)
    default_gpu_type: str | None = None
    network_interface: Interface | None = None
    visible_devices_env: str = Field(default="CUDA_VISIBLE_DEVICES", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    #: GPU visibility variables a worker on a GPU subset must not inherit: Slurm sets them to the whole
    #: allocation on every step of a GRES job; the subset goes in `visible_devices_env` alone (which is
    #: never unset, so one default list serves every profile)
    subset_unset_env: list[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]] = Field(
        default_factory=lambda: [
            "CUDA_VISIBLE_DEVICES",
            "ROCR_VISIBLE_DEVICES",
            "HIP_VISIBLE_DEVICES",
            "GPU_DEVICE_ORDINAL",
        ]
    )
    default_gpu_exporter: GpuExporter | None = DCGM_EXPORTER
    use_gpus_per_node_directive: bool = True
    use_segment_sbatch_directive: bool = True
    use_exclusive_sbatch_directive: bool = False
    use_het_jobs: bool = False
    default_sbatch_directives: Annotated[dict[OptionKey, str], AfterValidator(check_directives)] | None = None
    default_health_check: HealthCheck | None = None
    srtctl_root: MountPath | None = None  #: its configs/ is mounted under pyxis
    output_dir: str | None = None
    model_paths: dict[str, ModelPath] | None = None
    containers: dict[str, Image] | None = None
    cloud: dict[str, Any] | None = None
    default_mounts: dict[MountPath, MountPath] | None = None
    default_bash_preamble: str | None = None
    default_host_setup: dict[str, Any] | None = None
    reporting: dict[str, Any] | None = None
    telemetry: dict[str, Any] | None = None
    nginx_raise_ulimit: bool | None = None
    git_http_version: str | None = None
    preflight: bool = True
    record_launch_plan: bool = False
    launcher: Literal["slurm", "local"] = "slurm"
    fallback_launcher: Literal["local"] | None = None
    local_docker_args: list[str] | None = None
    container_runtime: Literal["pyxis", "none"] = "pyxis"
    #: environment variable names holding credentials, besides the known ones (HF_TOKEN, …)
    secret_env: list[EnvName] = Field(default_factory=list)
    #: `srun --mpi` plugin for engines launched over MPI (TRT-LLM); srtctl always uses pmix
    mpi_plugin: str = Field(default="pmix", pattern=r"^[A-Za-z0-9_]+$")

    @property
    def interface(self) -> str:
        """The NIC whose IPv4 every URL uses (srtctl's runtime default is eth0)."""
        return self.network_interface or "eth0"


@dataclass(frozen=True)
class LoadedProfile:
    """A validated profile with the name and file it came from."""

    name: str
    path: Path | None
    profile: Profile
    source: str  # "shipped", "user", "srtslurm.yaml", "file"


def parse_profile(path: Path) -> Profile:
    """Load and strictly validate one profile file."""
    src = load_yaml(path)
    data = src.data if src.data is not None else {}
    if not isinstance(data, dict):
        raise config_error(
            "a profile must be a YAML mapping",
            file=str(path),
            line=1,
            hint="write `key: value` lines such as `gpus_per_node: 8`",
        )
    try:
        profile = Profile.model_validate(data)
    except ValidationError as exc:
        from srt_tui.core.spec.model_errors import to_config_error  # only on errors: keeps start-up lean

        raise to_config_error(exc, Profile, src) from None
    return with_srtctl_root(profile, path)


def with_srtctl_root(profile: Profile, path: Path) -> Profile:
    """An `srtslurm.yaml` without `srtctl_root` is srtctl's own: srtctl then uses its checkout, at whose root
    the file sits (where discovery finds it), so the file's directory is the root (its `configs/`, ...)."""
    if profile.srtctl_root or path.name != SRTSLURM_FILE:
        return profile
    return profile.model_copy(update={"srtctl_root": str(path.resolve().parent)})


def _name_of(path: Path) -> str:
    return path.stem if path.name != "srtslurm.yaml" else (path.parent.name or "srtslurm")


def _check_user_profile(folder: Path, path: Path) -> None:
    """A profile found by name in the user's config directory runs its preamble as the user: it, its folder
    and the config directory must be the user's own and writable by nobody else (UnsafePath says which)."""
    config = user_config_dir()
    for directory in dict.fromkeys((config, folder)):
        if directory.exists():
            check_dir(directory, "config directory")
    check_file(path, "user profile")


def load_profile(spec: str | None = None, cwd: Path | None = None, named_by: str = "--profile") -> LoadedProfile:
    """Resolve `--profile NAME|PATH`, else srtslurm.yaml discovery, else the shipped `local` profile. ``named_by``:
    what the operator typed the name as, which its error names (`profiles show NAME`: `profiles show`)."""
    if spec:
        as_path = Path(spec).expanduser()
        if as_path.suffix in {".yaml", ".yml"} or os.sep in spec:
            if not as_path.exists():  # a directory or device is named by load_yaml
                raise config_error("profile file not found", file=spec, hint="check the path")
            return LoadedProfile(_name_of(as_path), as_path, parse_profile(as_path), "file")
        for source, folder in profile_dirs():
            for ext in (".yaml", ".yml"):
                candidate = folder / f"{spec}{ext}"
                if candidate.is_file():
                    if source == "user":
                        _check_user_profile(folder, candidate)
                    return LoadedProfile(spec, candidate, parse_profile(candidate), source)
        known = sorted({p.name for p in list_profile_files()})
        hint = did_you_mean(spec, known) or f"name one of the known profiles ({', '.join(known)}) or a profile file"
        raise ConfigError([Problem(field=named_by, message=f"no profile named `{spec}`", hint=hint)])
    found = find_srtslurm(cwd)
    if found is not None:
        return LoadedProfile(_name_of(found), found, parse_profile(found), "srtslurm.yaml")
    return load_profile(DEFAULT_PROFILE)


@dataclass(frozen=True)
class ProfileFile:
    """A profile file on disk, with its parse result or its error (for listings and the wizard)."""

    name: str
    path: Path
    source: str
    profile: Profile | None
    error: ConfigError | None


def list_profile_files() -> list[ProfileFile]:
    """Every user and shipped profile, each validated; broken files are listed with their error. In
    `PROFILE_ORDER`: the demo `local` first (the README's first command uses it), then the operator's own, then
    the shipped ones, each by name (a file name's sort put `local-rocr.yaml` above `local.yaml`)."""
    out: list[ProfileFile] = []
    seen: set[str] = set()
    for source, folder in profile_dirs():
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.y*ml"), key=lambda p: (p.stem, p.suffix)):  # `.yaml` before `.yml`
            if path.stem in seen:
                continue
            seen.add(path.stem)
            try:
                out.append(ProfileFile(path.stem, path, source, parse_profile(path), None))
            except ConfigError as exc:
                out.append(ProfileFile(path.stem, path, source, None, exc))
    return sorted(out, key=lambda pf: listing_key(pf.name, pf.source))
