"""`status`'s table at a terminal's width: columns give way whole by priority, with the TUI tables' own fitting
(`fit_columns.fit`, then `widen` as the jobs list does), so an 80-column pane never wraps a row or splits a header
(`EL`/`APSED`, op10 defect 7); a pipe keeps every column, whole, for the tools that parse it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from srt_tui.widgets.fit_columns import PADDING, FitColumn, Fitted, fit, fit_value, natural_widths, widen

#: `status`'s columns in their order; ``priority`` 0 always stays, the highest number leaves first (the jobs
#: list's order: the router's registrations and the GPUs' load before the counts, names and stages last)
COLUMNS: tuple[FitColumn, ...] = (
    FitColumn("job", "JOB", 0),
    FitColumn("name", "NAME", 1),
    FitColumn("state", "STATE", 2),
    FitColumn("stage", "STAGE", 1),
    FitColumn("healthy", "HEALTHY", 2),
    FitColumn("router", "ROUTER", 7),
    FitColumn("rate", "REQ/S", 3),
    FitColumn("requests", "REQ", 6),
    FitColumn("errors", "ERR", 5),
    FitColumn("elapsed", "ELAPSED", 4),
    FitColumn("gpu", "GPU UTIL", 8),
)
#: when the row does not fit whole: names and stages shortened to these (cut at a word, `h100-2p1d-…`), a queued
#: job's `queued 2m10s` to `queued`
NARROW_CAPS = {"name": 16, "stage": 18, "elapsed": 7}
#: between two columns
GAP = "  "


def fitted_columns(rows: Sequence[Mapping[str, str]], keys: Sequence[str], width: int | None) -> tuple[Fitted, ...]:
    """The columns of ``keys`` drawn for ``rows`` in ``width`` cells (``None``: all, each as wide as its widest
    value). Every column whole if that fits; else the jobs list's rule (`jobs_model.columns`): each column as wide as
    its cells' shorter wordings (``row[key + SHORT]``: `degraded` for `degraded · no healthy decode worker (2 hung)`)
    with names and stages capped, the lowest-priority columns leaving until the row fits, then the width left over
    given back to the columns cut, NAME first (`widen`: at 100 columns NAME read `mi300x-vllm-…` beside 10 blank
    cells), a column with a shorter wording taking its whole values or none of the difference."""
    columns = [c for c in COLUMNS if c.key in keys]
    natural = natural_widths(keys, rows)
    if width is None:
        return fit(columns, natural, 1 << 30)
    # a row is its widths joined by GAP, none after the last: `fit` counts PADDING after every column
    room = width + PADDING
    whole = fit(columns, natural, room)
    if len(whole) == len(columns):
        return whole
    narrow = [replace(c, cap=NARROW_CAPS.get(c.key, c.cap)) for c in columns]
    shorter = [{k: row.get(k + SHORT) or v for k, v in row.items()} for row in rows]
    worded = {key.removesuffix(SHORT) for row in rows for key in row if key.endswith(SHORT)}
    return widen(fit(narrow, natural_widths(keys, shorter), room), narrow, rows, room, worded)


def render(rows: Sequence[Mapping[str, str]], keys: Sequence[str], width: int | None) -> str:
    """The table: a header line, then one line per row, each cell cut to its column at a word (`fit_value`); a cell
    too wide for its column with a shorter wording (``row[key + SHORT]``: a queued job's `Slurm est. ~10m` for
    `pending (Resources, Slurm estimates start in ~10m)`, which read `pending …`) takes that one."""
    columns = fitted_columns(rows, keys, width)
    lines = [GAP.join(c.header.ljust(c.width) for c in columns).rstrip()]
    lines += [GAP.join(fit_value(_within(row, c), c.width).ljust(c.width) for c in columns).rstrip() for row in rows]
    return "\n".join(lines)


#: the key of a cell's shorter wording in a row: `stage` + SHORT
SHORT = ":short"


def _within(row: Mapping[str, str], column: Fitted) -> str:
    """The row's cell for ``column``: its shorter wording when the whole one does not fit and that one does."""
    value, short = row[column.key], row.get(column.key + SHORT, "")
    return short if len(value) > column.width and short and len(short) <= column.width else value


#: between the figures of a serving line, where it may wrap
PART = " · "


def wrapped(prefix: str, text: str, width: int | None) -> list[str]:
    """``prefix`` + ``text`` as lines of ``width`` (``None``: one line), broken only between its ` · ` parts, the
    next lines under the first's text (a serving line never wraps mid-word at the terminal's edge)."""
    parts = text.split(PART)
    if width is None or len(prefix) + len(text) <= width:
        return [prefix + text]
    lines: list[str] = []
    line = prefix + parts[0]
    for part in parts[1:]:
        if len(line) + len(PART) + len(part) <= width:
            line += PART + part
        else:
            lines.append(line)
            line = " " * len(prefix) + part
    return [*lines, line]


def problem_lines(prefix: str, text: str, width: int | None) -> list[str]:
    """``prefix`` + ``text``, a problem line, within ``width`` (``None``, a pipe: one line, whole, for the tools that
    read it): its paths' middle folders give way to `…` (`/scratch/…/logs/decode_0.log`), the longest path first,
    never a file name nor the reason; a line still too long wraps whole words under its text, its paths whole."""
    from srt_tui.tui.display import PATH, shorten_path

    line = prefix + text
    if width is None or len(line) <= width:
        return [line]
    cut = text
    for path in sorted(set(PATH.findall(text)), key=len, reverse=True):
        excess = len(prefix) + len(cut) - width
        if excess <= 0:
            break
        cut = cut.replace(path, shorten_path(path, max(len(path) - excess, 1)))
    if len(prefix) + len(cut) <= width:
        return [prefix + cut]
    lead = " " * (len(text) - len(text.lstrip(" ")))  # a failure's log line goes under its sentence
    indent = " " * len(prefix) + lead
    lines: list[str] = []
    current, fresh = prefix + lead, True
    for word in text.split():
        room = width - len(indent)
        bare = word.rstrip(":;,)")
        if len(word) > room and PATH.fullmatch(bare):  # a path no line holds whole: its middle gives way
            word = shorten_path(bare, room - (len(word) - len(bare))) + word[len(bare) :]
        if not fresh and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = indent + word
        else:
            current += ("" if fresh else " ") + word
        fresh = False
    return [*lines, current]
