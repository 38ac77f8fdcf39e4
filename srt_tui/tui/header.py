"""One-line header: app name, the three modes (active one highlighted), active profile, Slurm reachability."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from srt_tui.tui.context import NO_PROFILE

if TYPE_CHECKING:
    from srt_tui.tui.context import AppContext, ContextHub

MODES: tuple[tuple[str, str, str], ...] = (
    ("launch", "1", "Launch"),
    ("monitor", "2", "Monitor"),
    ("setup", "3", "Setup"),
)


class AppHeader(Widget):
    """The app's state at a glance; it watches the app's context hub and shows each new context."""

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
    slurm_cluster: reactive[str] = reactive("")
    read_only: reactive[bool] = reactive(False)

    def __init__(self, mode: str, hub: ContextHub, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.hub = hub
        self.set_reactive(AppHeader.mode, mode)

    def _style(self, name: str) -> Style:
        """A component class's own style (no inherited background), for text spans."""
        return self.get_component_rich_style(name, partial=True)

    def on_mount(self) -> None:
        """Show the current context now and every new one while mounted."""
        self.hub.watch(self, self.show)

    def show(self, context: AppContext) -> None:
        """Take the context's profile, Slurm state (and the cluster that answered) and read-only flag; the mouse over
        the header says why Slurm is what it is (`✗ unreachable` alone said nothing of the fix)."""
        self.profile = context.profile_label
        self.slurm_state = context.slurm_state
        self.slurm_reason = context.slurm_reason
        self.slurm_cluster = context.slurm_cluster
        self.read_only = context.read_only
        self.tooltip = f"Slurm: {context.slurm_reason}" if context.slurm_reason else None

    def render(self) -> Text:
        """Left: title and modes; right: profile and Slurm, in the longest form that fits: the profile's source
        and `cluster NAME` give way first, then the cluster's name, then the profile's name is cut."""
        st = self._style
        left = Text(" srt-tui ", style=st("app-header--title"))
        for mode, key, label in MODES:
            active = mode == self.mode
            left.append(f" {key} {label} ", style=st("app-header--mode-active" if active else "app-header--mode"))
        if self.read_only:
            left.append("  read-only", style=st("app-header--pending"))
        width = self.size.width
        room = width - left.cell_len - 1
        right = self._status(compact=False)
        if right.cell_len > room:
            right = self._status(compact=True)
        if right.cell_len > room:
            # a profile name too long for the short form is cut, so the Slurm mark always shows
            right = self._status(compact=True, room=room, named=False)
        gap = max(1, width - left.cell_len - right.cell_len)
        return left + Text(" " * gap) + right

    def _status(self, compact: bool, room: int = 0, named: bool = True) -> Text:
        """The profile and the Slurm mark: `profile local (shipped)  Slurm ✓ cluster local`, compact `local  Slurm
        ✓ local`; ``named`` False leaves the cluster out, and ``room`` cuts the profile's name to fit."""
        st = self._style
        words = {
            "up": ("✓", "✓ reachable", "app-header--ok"),
            "down": ("✗", "✗ unreachable", "app-header--bad"),
            "off": ("off", "check off", "app-header--dim"),
        }
        short, long, style = words.get(self.slurm_state, ("…", "checking…", "app-header--pending"))
        if self.slurm_state == "up" and self.slurm_cluster and named:  # which cluster answered (Submit says it too)
            short, long = f"✓ {self.slurm_cluster}", f"✓ cluster {self.slurm_cluster}"
        slurm = Text("  Slurm ", style=st("app-header--dim"))
        slurm.append(short if compact else long, style=st(style))
        slurm.append(" ")
        if self.profile == NO_PROFILE and self.mode != "launch":  # only Launch asks for one
            return slurm
        if not compact:
            return Text("profile ", style=st("app-header--dim")) + Text(self.profile) + slurm
        name = self.profile.split(" (")[0]
        fits = max(1, room - slurm.cell_len) if room else len(name)
        if len(name) > fits:
            name = name[: fits - 1] + "…"
        return Text(name, style=st("app-header--dim")) + slurm  # dim as a whole, as the long form
