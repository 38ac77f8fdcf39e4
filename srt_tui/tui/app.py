"""SrtTuiApp: the shell around three modes (Launch, Monitor, Setup), the header state and the Slurm check.

Startup stays lean: only Textual and the first wizard step are imported before the first frame; the
core (pydantic) loads in the profile worker, and later steps load when the operator reaches them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen

from ..widgets.app_header import AppHeader
from .commands import SrtCommands
from .messages import SlurmStatus

if TYPE_CHECKING:
    from ..core.profile import LoadedProfile

SlurmProbe = Callable[[], tuple[bool, str]]

#: the keys Textual's parser makes of `ESC 1`, `ESC 2`, `ESC 3` (¡, ™, £), and the mode each one means
ALT_MODE_KEYS = {"inverted_exclamation_mark": "launch", "trade_mark_sign": "monitor", "pound_sign": "setup"}


def _launch() -> Screen[None]:
    from .launch.screen import LaunchScreen

    return LaunchScreen()


def _monitor() -> Screen[None]:
    from .monitor.screen import MonitorScreen

    return MonitorScreen()


def _setup() -> Screen[None]:
    from .setup.screen import SetupScreen

    return SetupScreen()


class SrtTuiApp(App[None]):
    """The srt-tui app. `clock`, `check_slurm` and `slurm_probe` exist so tests and screenshots are exact."""

    TITLE = "srt-tui"
    CSS_PATH = "app.tcss"
    MODES: ClassVar[dict[str, str | Callable[[], Screen[None]]]] = {
        "launch": _launch,
        "monitor": _monitor,
        "setup": _setup,
    }
    DEFAULT_MODE: ClassVar[str] = "launch"
    COMMANDS = App.COMMANDS | {SrtCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "switch_mode('launch')", "Launch mode", show=False),
        Binding("2", "switch_mode('monitor')", "Monitor mode", show=False),
        Binding("3", "switch_mode('setup')", "Setup mode", show=False),
        Binding("f2", "switch_mode('launch')", "Launch mode", show=False),
        Binding("f3", "switch_mode('monitor')", "Monitor mode", show=False),
        Binding("f4", "switch_mode('setup')", "Setup mode", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    slurm_state: reactive[str] = reactive("checking")
    slurm_reason: reactive[str] = reactive("")
    profile_label: reactive[str] = reactive("…")

    def __init__(
        self,
        profile: str | None = None,
        read_only: bool = False,
        *,
        clock: Callable[[], datetime] | None = None,
        check_slurm: bool = True,
        slurm_probe: SlurmProbe | None = None,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.profile_spec = profile
        self.read_only = read_only
        self.clock: Callable[[], datetime] = clock or datetime.now
        self.check_slurm = check_slurm
        self.slurm_probe = slurm_probe
        self.cursor_blink = cursor_blink
        self.profile_label = profile or "(choose one)"
        if not check_slurm:
            self.slurm_state = "off"

    def on_mount(self) -> None:
        if self.check_slurm:
            self.probe_slurm()

    # -- header state -------------------------------------------------------------------------------

    def _push_header(self) -> None:
        for screen in self._all_screens():
            for header in screen.query(AppHeader):
                header.profile = self.profile_label
                header.slurm_state = self.slurm_state
                header.slurm_reason = self.slurm_reason
                header.read_only = self.read_only

    def _all_screens(self) -> list[Screen[object]]:
        screens: list[Screen[object]] = []
        for stack in self._screen_stacks.values():
            screens.extend(stack)
        return screens

    def watch_slurm_state(self) -> None:
        self._push_header()

    def watch_profile_label(self) -> None:
        self._push_header()

    def set_active_profile(self, loaded: LoadedProfile) -> None:
        """The profile the operator chose in the wizard becomes the header's profile."""
        self.profile_label = f"{loaded.name} ({loaded.source})"

    # -- Slurm reachability (worker) -----------------------------------------------------------------

    @work(thread=True, exclusive=True, group="slurm-check", name="slurm-check", exit_on_error=False)
    def probe_slurm(self) -> None:
        """Ask whether Slurm answers; never on the UI thread."""
        probe = self.slurm_probe
        if probe is None:
            try:
                from ..slurm.submit import slurm_reachable
            except ImportError as exc:
                self.post_message(SlurmStatus(False, f"srt_tui.slurm.submit is not available ({exc})"))
                return
            probe = slurm_reachable
        try:
            ok, reason = probe()
        except Exception as exc:  # the check must report, never crash the app
            self.post_message(SlurmStatus(False, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(SlurmStatus(ok, reason))

    def on_slurm_status(self, message: SlurmStatus) -> None:
        """The newest answer (this check, or Setup's probes) sets the header; with the check off it stays off."""
        if not self.check_slurm:
            return
        self.slurm_reason = message.reason
        self.slurm_state = "up" if message.reachable else "down"

    # -- keys and modes -----------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        """A fast Esc then 1/2/3 reaches Textual as one key, the macOS Option character (`ESC 2` is `™`):
        it switches mode before any focused input sees it (a binding cannot: an input claims printable keys)."""
        if isinstance(event, events.Key) and not event.is_forwarded and event.key in ALT_MODE_KEYS:
            event.stop()
            await self.switch_mode(ALT_MODE_KEYS[event.key])
            return
        await super().on_event(event)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """With cursor_blink off (tests, screenshots) no text cursor blinks, so frames are reproducible."""
        if not self.cursor_blink and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    def action_help(self) -> None:
        from .help_screen import HelpScreen, collect_keys

        if isinstance(self.screen, HelpScreen):
            return
        active = self.screen.active_bindings
        display = {key: self.get_key_display(active[key].binding) for key in active}
        self.push_screen(HelpScreen(collect_keys(dict(active), display)))

    async def show_job(self, job_id: str, job_dir: Path) -> None:
        """Switch to Monitor and focus the job that was just submitted."""
        await self.switch_mode("monitor")
        base = self.screen_stack[0]
        focus_job = getattr(base, "focus_job", None)
        if callable(focus_job):
            focus_job(job_id, job_dir)


def run_app(args: argparse.Namespace) -> int:
    """Run the TUI (`srt-tui` with no subcommand); returns the process exit code."""
    SrtTuiApp(profile=args.profile, read_only=args.read_only).run()
    return 0
