"""srtctl's discovery of its cluster configuration (`srtslurm.yaml`), without the profile models.

A few `stat` calls: the TUI asks before its first frame whether a profile is already chosen (then the wizard
opens on the recipe list, as srtctl's interactive mode does), so this module imports neither pydantic nor YAML.
"""

from __future__ import annotations

import os
from pathlib import Path

from srt_tui.core.errors import config_error

#: srtctl's cluster configuration file, found by discovery (`SRTSLURM_CONFIG`, ./, ../, ../../)
SRTSLURM_FILE = "srtslurm.yaml"


def find_srtslurm(cwd: Path | None = None) -> Path | None:
    """srtctl's discovery: `$SRTSLURM_CONFIG`, then ./, ../, ../../srtslurm.yaml."""
    env = os.environ.get("SRTSLURM_CONFIG")
    if env:
        path = Path(env)
        if not path.is_file():
            raise config_error(
                "SRTSLURM_CONFIG points to a file that does not exist",
                file=env,
                hint="fix the variable or unset it",
            )
        return path
    base = (cwd or Path.cwd()).resolve()
    for folder in (base, base.parent, base.parent.parent):
        candidate = folder / SRTSLURM_FILE
        if candidate.is_file():
            return candidate
    return None
