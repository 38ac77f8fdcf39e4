"""The terminal widths at which views change layout, in CSS and in Python alike.

The app's `HORIZONTAL_BREAKPOINTS` are built from `WIDE` and `SLIM`, so a screen carries the `-wide` class exactly
when `is_wide(width)` holds and `-slim` exactly when `is_slim(width)` does: stylesheets (`Screen.-narrow …`) and
code never disagree. A screen has one of the three classes; a rule for every width below `WIDE` names both
`Screen.-narrow` and `Screen.-slim`.
"""

from __future__ import annotations

#: 80-column terminals get the narrow layouts; 110 fits the jobs table's and worker table's wide columns
WIDE = 110

#: below this, panels side by side stack (the wizard's recipe details under the tree, the GPU plan under the roles):
#: at 60 columns beside each other they were 7 to 18 columns wide and wrapped every row
SLIM = 70

#: Textual's screen classes by width (`App.HORIZONTAL_BREAKPOINTS`)
BREAKPOINTS: list[tuple[int, str]] = [(0, "-slim"), (SLIM, "-narrow"), (WIDE, "-wide")]


def is_wide(width: int) -> bool:
    """Whether a view `width` columns wide shows its wide layout (the screen then has `-wide`)."""
    return width >= WIDE


def is_slim(width: int) -> bool:
    """Whether a view `width` columns wide stacks its panels (the screen then has `-slim`)."""
    return width < SLIM


#: from this many rows every panel of the job view shows in full; below it (80x24) the panels above the
#: worker table keep to their key figures so the table stays on the first screen
TALL = 30


def is_tall(height: int) -> bool:
    """Whether a terminal `height` rows high has room for the job view's panels in full."""
    return height >= TALL
