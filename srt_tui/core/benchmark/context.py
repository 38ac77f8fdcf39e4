"""What the benchmark step knows of the job: where to send requests, the model's names, GPUs, leaders."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchContext:
    """What the benchmark needs to know of the job: where to send requests, what to call the model, GPUs."""

    name: str
    engine: str
    frontend: str
    public_url: str  # http://<ip:nodeK>:PORT, the router or the single worker
    model: str  # the model path as the step sees it (tokenizer)
    served: str
    gpus_total: int
    gpus_prefill: int
    gpus_decode: int
    disaggregated: bool
    leaders: tuple[tuple[str, str], ...]  # (role, HTTP url) of every logical worker's leader
    #: (role, url) where each logical worker publishes health and metrics: the HTTP url, or Dynamo's system port
    endpoints: tuple[tuple[str, str], ...] = ()

    @property
    def frontend_host(self) -> str:
        """Host part of the public URL (a node-address placeholder)."""
        return self.public_url.split("://", 1)[-1].rpartition(":")[0]

    @property
    def frontend_port(self) -> str:
        """Port of the public URL."""
        return self.public_url.rpartition(":")[2].split("/")[0]
