"""`frontend.type` spellings: the fork's (SemiAnalysisAI/srt-slurm schema 2) and srt-tui's older aliases.

A recipe keeps the type as written; `routers.resolve_router` turns (type, topology) into the Router
adapter that runs. Each spelling says which adapter fronts several workers or prefill/decode
(`routed`, None when the type serves one aggregated worker only) and whether one aggregated worker
serves directly, binding the public port itself (`direct_single`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FrontendType:
    """What one written `frontend.type` means."""

    name: str
    #: adapter for several workers or prefill/decode; None: this type serves one aggregated worker only
    routed: str | None
    #: one aggregated worker serves directly (no router process, the worker owns the public port)
    direct_single: bool
    #: what to write instead when the topology needs a router this type does not have
    router_hint: str = ""
    #: the engines the fork pairs this type with (empty: whatever the chosen adapter fronts)
    engines: frozenset[str] = frozenset()
    #: srtctl's name of it, which a benchmark step sees as `SRTCTL_FRONTEND_TYPE` (empty: the same)
    srtctl: str = ""

    @property
    def srtctl_name(self) -> str:
        """What srtctl calls this frontend type."""
        return self.srtctl or self.name


#: the accepted spellings: the fork's and srt-tui's here, and each registered router process under its own name
#: (`routers.register_router` adds a new router's); a recipe's `frontend.type` is checked against this table
FRONTEND_TYPES: dict[str, FrontendType] = {
    t.name: t
    for t in (
        # the fork (and upstream srtctl): the SGLang router for replicas or P/D, the worker itself for one
        FrontendType("sglang", "sglang-router", True, engines=frozenset({"sglang", "mocker"})),
        FrontendType(
            "vllm",
            None,
            True,
            "use frontend.type: vllm-router (or dynamo) for several workers or prefill/decode",
            frozenset({"vllm", "mocker"}),
        ),
        FrontendType(
            "atom",
            None,
            True,
            "use frontend.type: atomesh for several workers or prefill/decode",
            frozenset({"atom", "mocker"}),
        ),
        FrontendType("sglang-router", "sglang-router", False, srtctl="sglang"),
        # the fork's Shepherd Model Gateway (sglang-router's successor): a router whatever the topology
        FrontendType("smg", "smg", False),
        FrontendType("vllm-router", "vllm-router", False),
        FrontendType("atomesh", "atomesh", False),
        FrontendType("dynamo", "dynamo", False),
        FrontendType(
            "trtllm_serve",
            None,
            True,
            "trtllm_serve's disaggregated orchestrator (`trtllm-serve disaggregated`) is not supported by "
            "srt-tui yet; use frontend.type: dynamo for several TRT-LLM workers or prefill/decode",
            frozenset({"trtllm", "mocker"}),
        ),
        # srt-tui's older name for direct serving (the fork's `none` is a services-only job)
        FrontendType(
            "none", None, True, "choose a router such as sglang (SGLang router) or vllm-router for several workers"
        ),
    )
}


def add_frontend_type(spelling: FrontendType) -> None:
    """Accept one more `frontend.type` spelling (a newly registered router's name)."""
    FRONTEND_TYPES.setdefault(spelling.name, spelling)


#: frontends of the fork srt-tui knows but does not run, with what they are
UNSUPPORTED_FRONTENDS: dict[str, str] = {
    "tilert-router": "the TileRT router",
    "llm-d": "the llm-d inference scheduler",
    "llm_d": "the llm-d inference scheduler",
    "infera": "the Infera frontend",
    "dynamic": "the dynamic (discovery) frontend",
}


def unsupported_frontend(name: object) -> str | None:
    """The refusal message for a fork frontend srt-tui does not run, else None."""
    if isinstance(name, str) and name in UNSUPPORTED_FRONTENDS:
        return f"frontend `{name}` ({UNSUPPORTED_FRONTENDS[name]}) is not supported by srt-tui yet"
    return None
