"""Mock worker configuration: one immutable value per process, built from the command line."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Literal

Role = Literal["prefill", "decode", "regular"]
Flavor = Literal["sglang", "vllm"]
ROLES: tuple[Role, ...] = ("prefill", "decode", "regular")
FLAVORS: tuple[Flavor, ...] = ("sglang", "vllm")
VISIBILITY_VARS = (
    "CUDA_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
)
DEFAULT_MODEL = "mock-model"
#: P/D: how long a decode waits for its prefill's KV by default, and at most (see `bootstrap`)
DEFAULT_KV_WAIT_S = 30.0
MAX_KV_WAIT_S = 3600.0
_NAME_PREFIX: dict[Role, str] = {"prefill": "prefill", "decode": "decode", "regular": "worker"}


def default_name(role: Role, port: int) -> str:
    """Worker name when none is given: role and port, e.g. ``prefill-6100``."""
    return f"{_NAME_PREFIX[role]}-{port}"


def visibility_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """Every GPU visibility variable that is set, with its value."""
    env = os.environ if environ is None else environ
    return {name: env[name] for name in VISIBILITY_VARS if name in env}


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a mock worker is told at launch; runtime changes live in WorkerState."""

    port: int
    host: str = "0.0.0.0"
    role: Role = "regular"
    flavor: Flavor = "sglang"
    name: str = ""
    model: str = DEFAULT_MODEL
    bootstrap_port: int | None = None
    tp_size: int = 1
    dp_size: int = 1
    startup_delay_s: float = 0.0
    latency_ms: float = 0.0
    token_latency_ms: float = 2.0
    fail_rate: float = 0.0
    exit_after_s: float | None = None
    #: how long a decode waits for its prefill's KV (the P/D bootstrap rendezvous) before failing the request
    kv_wait_timeout_s: float = DEFAULT_KV_WAIT_S
    visible_devices_env: str = "CUDA_VISIBLE_DEVICES"
    log_path: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {self.role!r}")
        if self.flavor not in FLAVORS:
            raise ValueError(f"flavor must be one of {', '.join(FLAVORS)}, not {self.flavor!r}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be 0..65535, not {self.port}")
        if self.bootstrap_port is not None and not 1 <= self.bootstrap_port <= 65535:
            raise ValueError(f"bootstrap port must be 1..65535, not {self.bootstrap_port}")
        if self.tp_size < 1 or self.dp_size < 1:
            raise ValueError("tp size and dp size must be at least 1")
        if not 0.0 <= self.fail_rate <= 1.0:
            raise ValueError(f"fail rate must be within 0..1, not {self.fail_rate}")
        for label, value in (
            ("startup delay", self.startup_delay_s),
            ("latency", self.latency_ms),
            ("token latency", self.token_latency_ms),
        ):
            if value < 0:
                raise ValueError(f"{label} must not be negative")
        if self.exit_after_s is not None and self.exit_after_s < 0:
            raise ValueError("exit-after must not be negative")
        if not 0 < self.kv_wait_timeout_s <= MAX_KV_WAIT_S:
            raise ValueError(f"kv wait timeout must be more than 0 and at most {MAX_KV_WAIT_S:g} seconds")
        if not self.visible_devices_env or "=" in self.visible_devices_env:
            raise ValueError(f"invalid visibility variable name {self.visible_devices_env!r}")
        if not self.name:
            object.__setattr__(self, "name", default_name(self.role, self.port))
        if any(ch.isspace() for ch in self.name):
            raise ValueError(f"worker name must be one word (it is the first generated token): {self.name!r}")
        if not self.model.strip():
            raise ValueError("model name must not be empty")

    @property
    def disaggregation_mode(self) -> str:
        """SGLang's ``disaggregation_mode`` value: ``null`` for a regular worker, else the role."""
        return "null" if self.role == "regular" else self.role

    @property
    def hostname(self) -> str:
        """This host's name, as reported in server info."""
        return socket.gethostname()

    @property
    def visible_devices(self) -> str | None:
        """The mask in the configured visibility variable, or None when unset."""
        return os.environ.get(self.visible_devices_env)

    def banner(self, pid: int) -> str:
        """The one start-up line: who this worker is and which GPU mask it got."""
        mask = self.visible_devices
        return (
            f"mock worker {self.name} role={self.role} flavor={self.flavor} port={self.port} pid={pid} "
            f"{self.visible_devices_env}={mask if mask is not None else '(unset)'}"
        )
