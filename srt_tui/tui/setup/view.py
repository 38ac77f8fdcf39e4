"""Text of Setup mode: step list with marks, findings, proposal rows and evidence (no widgets here)."""

from __future__ import annotations

import re

from rich.console import Console
from rich.text import Text

from srt_tui.setup.findings import Finding
from srt_tui.setup.probes import STEPS
from srt_tui.setup.proposal import Proposal, ProposedKey
from srt_tui.tui.display import hang

MARK_STYLE: dict[str, tuple[str, str]] = {
    "pending": ("○", "dim"),
    "running": ("◌", "yellow"),
    "ok": ("✓", "green"),
    "info": ("·", "cyan"),
    "warning": ("!", "yellow"),
    "error": ("✗", "red"),
    "skipped": ("–", "dim"),
}


def steps_text(status: dict[str, tuple[str, str]]) -> Text:
    """One line per probe step: mark, label, detail."""
    out = Text()
    for step, label in STEPS:
        state, detail = status.get(step, ("pending", ""))
        mark, style = MARK_STYLE.get(state, ("?", ""))
        out.append(f" {mark} ", style=style)
        out.append(f"{label:<26}", style="bold" if state == "running" else "")
        out.append(f"{detail}\n", style="dim" if state in ("pending", "skipped") else "")
    return out


#: where a finding's `fix:` starts
FIX = "     fix: "


def findings_text(findings: list[Finding], console: Console, width: int) -> Text:
    """Findings that need attention, each with its fix, in ``width`` columns: what it says wraps under its own start
    and the fix under its own, not at column 0 where it reads as a finding of its own (operator pass: `the cluster
    needs none)` under the findings' marks)."""
    out = Text()
    for f in findings:
        if f.level in ("ok",):
            continue
        mark, style = MARK_STYLE[f.level]
        head = f" {mark} {f.name}: "
        out.append(head, style=style)
        hang(out, Text(f.error or f.value), console, width, len(head), first=False)
        if f.fix:
            out.append(FIX, style="dim")
            hang(out, Text(f.fix, style="dim"), console, width, len(FIX), first=False)
    return out


def probing_text(running: tuple[str, str] | None, previous: list[Finding] | None, console: Console, width: int) -> Text:
    """The findings pane while a probe runs: what it is doing (the probe job's id and state once it is queued:
    `◌ Probing · Compute node (probe job): job 6 PENDING (Resources), waited 12 s`), then the last run's findings
    dimmed under a line that says they are the previous run's (operator pass: Probe again showed them as if they
    were the new probe's while its job was pending)."""
    labels = dict(STEPS)
    out = Text()
    out.append("◌ Probing", style="bold yellow")
    if running is not None:
        step, detail = running
        out.append(f" · {labels.get(step, step)}" + (f": {detail}" if detail else "…"))
    out.append("\n")
    if previous is not None:
        shown = findings_text(previous, console, width)
        out.append("\nPrevious run's findings (replaced when this probe ends):\n", style="bold dim")
        if shown.plain:
            shown.stylize("dim")
            out.append_text(shown)
        else:
            out.append(" none that needed attention\n", style="dim")
    return out


def value_lines(key: ProposedKey) -> list[str]:
    """A proposed value's lines: a map's entries one a line (`alias=path`), else the value on one line; a value not
    written (an omitted default) in brackets."""
    value = key.value
    if isinstance(value, dict):
        lines = [f"{k}={v}" for k, v in value.items()] if len(value) < 4 else [f"{len(value)} entries"]
    elif value is None:
        lines = ["null"]
    else:
        lines = [str(value).lower() if isinstance(value, bool) else str(value)]
    if not key.written:
        lines[0] = f"({lines[0]}"
        lines[-1] = f"{lines[-1]})"
    return lines


#: where a long value may break: after a path separator, a comma, `=`, `:` or a space
_BREAK_AFTER = re.compile(r"(?<=[/,=: ])")


def wrap_value(lines: list[str], width: int) -> str:
    """The value's lines in `width` columns, each broken after a separator (`/`, `,`, `=`) so a path is never cut
    mid-word (operator pass: `mock-model=/models/op7/model` / `s/mock`); only a single word wider than the column is
    left for the table to fold."""
    out: list[str] = []
    for line in lines:
        if width <= 0 or len(line) <= width:
            out.append(line)
            continue
        current = ""
        for piece in (p for p in _BREAK_AFTER.split(line) if p):
            if current and len(current) + len(piece) > width:
                out.append(current)
                current = piece
            else:
                current += piece
        out.append(current)
    return "\n".join(out)


def evidence_text(proposal: Proposal, selected: str | None) -> Text:
    """The selected key's evidence first, then the problems that block writing."""
    out = Text()
    key = proposal.key(selected) if selected else None
    if key is not None:
        out.append(f"{key.key}", style="bold")
        out.append(f"  [{key.source}{'' if key.written else ', not written'}]\n", style="dim")
        out.append(key.evidence + "\n")
    if proposal.problems:
        out.append("\nMust fix before writing:\n", style="bold red")
        for problem in proposal.problems:
            out.append(f" ✗ {problem}\n", style="red")
    elif proposal.profile is not None:
        out.append("\n✓ valid profile", style="green")
    return out
