"""Which environment values are secrets, so previews, plans and logs never show them."""

from __future__ import annotations

import re

_SECRET = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_KEY|ACCESS_KEY|PRIVATE_KEY|AUTH)", re.I)
MASK = "***"


def is_secret(name: str) -> bool:
    """True for variable names that conventionally hold credentials (HF_TOKEN, AWS_SECRET_ACCESS_KEY…)."""
    return bool(_SECRET.search(name))


def mask_env(env: dict[str, str]) -> dict[str, str]:
    """Copy of `env` with secret values replaced by `***`."""
    return {k: (MASK if is_secret(k) else v) for k, v in env.items()}
