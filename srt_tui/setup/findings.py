"""What every probe returns: a Finding (name, ok, value, evidence, error, fix), never an exception."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["ok", "info", "warning", "error"]

#: Marks shown next to each finding in text output.
MARKS: dict[str, str] = {"ok": "✓", "info": "·", "warning": "!", "error": "✗"}


@dataclass(frozen=True)
class Finding:
    """One probe or check result: what was asked, what was seen, and how to fix it when it is wrong."""

    name: str
    ok: bool
    value: str = ""
    evidence: str = ""
    error: str = ""
    fix: str = ""
    level: Level = "ok"

    @classmethod
    def good(cls, name: str, value: str, evidence: str) -> Finding:
        """A probe that answered."""
        return cls(name=name, ok=True, value=value, evidence=evidence, level="ok")

    @classmethod
    def note(cls, name: str, value: str, evidence: str, fix: str = "") -> Finding:
        """Something worth knowing that does not stop a profile from working (e.g. no accounting)."""
        return cls(name=name, ok=True, value=value, evidence=evidence, fix=fix, level="info")

    @classmethod
    def warn(cls, name: str, error: str, fix: str, evidence: str = "", value: str = "") -> Finding:
        """A probe that could not answer, or an answer that needs the operator's attention."""
        return cls(name=name, ok=False, value=value, evidence=evidence, error=error, fix=fix, level="warning")

    @classmethod
    def bad(cls, name: str, error: str, fix: str, evidence: str = "", value: str = "") -> Finding:
        """Something that will make jobs fail."""
        return cls(name=name, ok=False, value=value, evidence=evidence, error=error, fix=fix, level="error")

    def render(self) -> str:
        """One or two lines: mark, name, value or error, then the fix."""
        head = f"{MARKS[self.level]} {self.name}: "
        head += self.error if self.error else self.value
        if self.evidence and not self.error:
            head += f" ({self.evidence})"
        elif self.evidence:
            head += f"\n    seen: {self.evidence}"
        if self.fix:
            head += f"\n    fix: {self.fix}"
        return head


def worst(findings: list[Finding]) -> Level:
    """The most severe level among findings ("ok" when empty)."""
    order: list[Level] = ["ok", "info", "warning", "error"]
    return max((f.level for f in findings), key=order.index, default="ok")
