"""Which step the wizard opens on: worked out before Textual is imported, so the recipe reader process started
then knows whether the profile list is wanted first."""

from __future__ import annotations


def profile_given(preferred: str | None) -> bool:
    """`srt-tui -p PROFILE`, or an srtslurm.yaml found the srtctl way (a few stats, no profile models): the
    wizard opens on the recipe list, as srtctl's interactive mode does; otherwise on the profile list."""
    if preferred:
        return True
    from srt_tui.core.errors import SrtError
    from srt_tui.core.spec.discovery import find_srtslurm

    try:
        return find_srtslurm() is not None
    except SrtError:  # SRTSLURM_CONFIG names no file: the Profile step says so
        return False
