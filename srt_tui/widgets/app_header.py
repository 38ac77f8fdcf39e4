"""One-line header: app name, the three modes (active one highlighted), active profile, Slurm reachability."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

MODES: tuple[tuple[str, str, str], ...] = (
    ("launch", "1", "Launch"),
    ("monitor", "2", "Monitor"),
    ("setup", "3", "Setup"),
)


class AppHeader(Widget):
    """The app's state at a glance; the App pushes new values into the reactives."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "app-header--title",
        "app-header--mode",
        "app-header--mode-active",
        "app-header--ok",
        "app-header--bad",
        "app-header--pending",
        "app-header--dim",
    }

    DEFAULT_CSS = """
    AppHeader {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
    }
    AppHeader > .app-header--title { text-style: bold; color: $text-primary; }
    AppHeader > .app-header--mode { color: $text-muted; }
    AppHeader > .app-header--mode-active { background: $primary; color: $text; text-style: bold; }
    AppHeader > .app-header--ok { color: $text-success; }
    AppHeader > .app-header--bad { color: $text-error; }
    AppHeader > .app-header--pending { color: $text-warning; }
    AppHeader > .app-header--dim { color: $text-muted; }
    """

    mode: reactive[str] = reactive("launch")
    profile: reactive[str] = reactive("…")
    slurm_state: reactive[str] = reactive("checking")
    slurm_reason: reactive[str] = reactive("")
    read_only: reactive[bool] = reactive(False)

    def __init__(self, mode: str, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.set_reactive(AppHeader.mode, mode)

    def _style(self, name: str) -> Style:
        """A component class's own style (no inherited background), for text spans."""
        return self.get_component_rich_style(name, partial=True)

    def on_mount(self) -> None:
        """Take the app's current values (the app pushes later changes)."""
        app = self.app
        self.profile = str(getattr(app, "profile_label", self.profile))
        self.slurm_state = str(getattr(app, "slurm_state", self.slurm_state))
        self.slurm_reason = str(getattr(app, "slurm_reason", self.slurm_reason))
        self.read_only = bool(getattr(app, "read_only", False))

    def render(self) -> Text:
        """Left: title and modes; right: profile and Slurm."""
        st = self._style
        left = Text(" srt-tui ", style=st("app-header--title"))
        for mode, key, label in MODES:
            active = mode == self.mode
            left.append(f" {key} {label} ", style=st("app-header--mode-active" if active else "app-header--mode"))
        if self.read_only:
            left.append("  read-only", style=st("app-header--pending"))
        width = self.size.width
        right = self._status(compact=False)
        if left.cell_len + right.cell_len + 1 > width:
            right = self._status(compact=True)
        gap = max(1, width - left.cell_len - right.cell_len)
        return left + Text(" " * gap) + right

    def _status(self, compact: bool) -> Text:
        st = self._style
        out = Text("" if compact else "profile ", style=st("app-header--dim"))
        out.append(self.profile.split(" (")[0] if compact else self.profile)
        out.append("  Slurm ", style=st("app-header--dim"))
        words = {
            "up": ("✓", "✓ reachable", "app-header--ok"),
            "down": ("✗", "✗ unreachable", "app-header--bad"),
            "off": ("off", "check off", "app-header--dim"),
        }
        short, long, style = words.get(self.slurm_state, ("…", "checking…", "app-header--pending"))
        out.append(short if compact else long, style=st(style))
        return out + Text(" ")
