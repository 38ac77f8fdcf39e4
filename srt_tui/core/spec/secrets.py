"""Which environment values are secrets: declared names, never guessed from a name fragment.

A secret's value lives only in the job's 0600 `secrets.env`, one entry per scope that sets it, so a
role keeps its own value; the launch script, plan, previews and logs name the variable, never the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

#: credentials known by name; a profile's `secret_env` adds its own
KNOWN_SECRETS: frozenset[str] = frozenset(
    {
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "HUGGINGFACE_HUB_TOKEN",
        "HUGGINGFACE_TOKEN",
        "HF_API_TOKEN",
        "NGC_API_KEY",
        "NVIDIA_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "WANDB_API_KEY",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AZURE_STORAGE_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "SRTCTL_STATUS_TOKEN",
        "SRTCTL_API_KEY",
    }
)
MASK = "***"

# names that read like a credential: only ever used to *warn* that one is not declared
_LOOKS_SECRET = re.compile(r"(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)$")


def secret_names(declared: Iterable[str] = ()) -> frozenset[str]:
    """The known secret names plus a profile's declared ones."""
    return KNOWN_SECRETS | frozenset(declared)


def looks_secret(name: str) -> bool:
    """A name that reads like a credential (`MY_SERVICE_TOKEN`), for the undeclared-secret warning."""
    return bool(_LOOKS_SECRET.search(name))


def secret_ref(scope: str, name: str) -> str:
    """The `secrets.env` variable holding `name`'s value as set by `scope` (one per scope, so roles differ)."""
    return f"SRT_SECRET_{re.sub(r'[^A-Za-z0-9]', '_', scope).upper()}__{name}"


def masked_env(env: Mapping[str, str], declared: Iterable[str] = ()) -> dict[str, str]:
    """``env`` as a screen may show it: every known or declared secret's value replaced by ``MASK``."""
    names = secret_names(declared)
    return {k: MASK if k in names else v for k, v in env.items()}


def redact(text: str, values: Iterable[str]) -> str:
    """``text`` with every occurrence of a secret value replaced by ``MASK`` (values under 4 characters
    are left: masking `1` or `on` would garble text without protecting anything)."""
    for value in sorted({v for v in values if len(v) >= 4}, key=len, reverse=True):
        text = text.replace(value, MASK)
    return text
