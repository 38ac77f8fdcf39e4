"""The one terminal width from which every view switches to its wide layout, in CSS and in Python alike.

The app's `HORIZONTAL_BREAKPOINTS` are built from `WIDE`, so a screen carries the `-wide` class exactly
when `is_wide(width)` holds: stylesheets (`Screen.-narrow …`) and code never disagree.
"""

from __future__ import annotations

#: 80-column terminals get the narrow layouts; 110 fits the jobs table's and worker table's wide columns
WIDE = 110

#: Textual's screen classes by width (`App.HORIZONTAL_BREAKPOINTS`)
BREAKPOINTS: list[tuple[int, str]] = [(0, "-narrow"), (WIDE, "-wide")]


def is_wide(width: int) -> bool:
    """Whether a view `width` columns wide shows its wide layout (the screen then has `-wide`)."""
    return width >= WIDE


#: from this many rows every panel of the job view shows in full; below it (80x24) the panels above the
#: worker table keep to their key figures so the table stays on the first screen
TALL = 30


def is_tall(height: int) -> bool:
    """Whether a terminal `height` rows high has room for the job view's panels in full."""
    return height >= TALL
