"""How profiles are listed (the wizard's Profile step, `srt-tui profiles`), in words and as a sort key: light, so
the wizard's first frame says it without loading the profile model."""

from __future__ import annotations

#: the shipped demo profile: no cluster needed, the README's first command uses it
DEMO_PROFILE = "local"
#: the order in words, as the Profile step says it
PROFILE_ORDER = "the demo `local` first, then yours, then the shipped ones, each A–Z"
#: where each source of profiles comes (the operator's own before the shipped ones)
SOURCE_RANK = {"user": 0, "shipped": 1}


def listing_key(name: str, source: str) -> tuple[bool, int, str]:
    """Sort key of a profile in `PROFILE_ORDER` (by name, not file name: `local-rocr.yaml` sorted above
    `local.yaml`)."""
    return name != DEMO_PROFILE, SOURCE_RANK.get(source, len(SOURCE_RANK)), name
