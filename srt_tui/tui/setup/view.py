"""Text of Setup mode: step list with marks, findings, proposal rows and evidence (no widgets here)."""

from __future__ import annotations

from rich.text import Text

from srt_tui.setup.findings import Finding
from srt_tui.setup.probes import STEPS
from srt_tui.setup.proposal import Proposal, ProposedKey

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


def findings_text(findings: list[Finding]) -> Text:
    """Findings that need attention, each with its fix."""
    out = Text()
    for f in findings:
        if f.level in ("ok",):
            continue
        mark, style = MARK_STYLE[f.level]
        out.append(f" {mark} {f.name}: ", style=style)
        out.append(f"{f.error or f.value}\n")
        if f.fix:
            out.append(f"     fix: {f.fix}\n", style="dim")
    return out


def value_text(key: ProposedKey) -> str:
    """A proposed value on one line (maps as k=v, omitted defaults in brackets)."""
    value = key.value
    if isinstance(value, dict):
        shown = ", ".join(f"{k}={v}" for k, v in value.items()) if len(value) < 4 else f"{len(value)} entries"
    elif value is None:
        shown = "null"
    else:
        shown = str(value).lower() if isinstance(value, bool) else str(value)
    return shown if key.written else f"({shown})"


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
