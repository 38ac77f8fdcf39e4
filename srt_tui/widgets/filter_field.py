"""The `/` filter field of every list (the Monitor's jobs, all my Slurm jobs, the wizard's profiles and recipes): one
widget, one look. Each screen had its own Input and its own rule for it (the jobs list's and the wizard's indented by
a cell, all jobs' flush with the edge), so the same field looked different from screen to screen."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Input


class FilterField(Input):
    """A list's filter: indented as the list under it, the placeholder saying what it matches and how to leave."""

    DEFAULT_CSS: ClassVar[str] = """
    FilterField {
        margin: 0 1;
    }
    """
