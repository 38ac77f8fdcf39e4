"""SrtTuiApp: the shell around three modes (Launch, Monitor, Setup), the app's context and the Slurm check.

Every mode's screen is built with the app's `ContextHub` (clock, read-only, profile, Slurm state); the
screens watch it and never reach for this class, so nothing under `tui/` imports this module.
Startup stays lean: only Textual and the first wizard step are imported before the first frame; the
core (pydantic) loads in the profile worker, and later steps load when the operator reaches them.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from functools import partial
from pathlib import Path, PurePath
from typing import ClassVar

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import ActiveBinding, Binding, BindingType
from textual.command import CommandPalette
from textual.driver import Driver
from textual.keys import _character_to_key
from textual.notifications import Notify
from textual.screen import Screen

from srt_tui.tui.commands import SrtCommands
from srt_tui.tui.context import NO_PROFILE, AppContext, ContextHub
from srt_tui.tui.key_order import KeyQueue, Typed
from srt_tui.tui.launch.messages import JobSubmitted, SweepSubmitted
from srt_tui.tui.messages import CloneJob, HoldKeys, SlurmStatus
from srt_tui.tui.mode_screen import ModeApp, ModeScreen
from srt_tui.tui.palette import ScreenActions
from srt_tui.tui.terminal_keys import read_keys_with_alt
from srt_tui.tui.toasts import ToastKeeper
from srt_tui.tui.workers import ReportsWorkerErrors, WorkerFailed
from srt_tui.widgets.layout import BREAKPOINTS

#: whether Slurm answers and why; a third item names the cluster that answered (`slurm_reachable`'s does)
SlurmProbe = Callable[[], tuple[bool, str] | tuple[bool, str, str]]
#: builds a mode's base screen from the app's context hub
ScreenFactory = Callable[[ContextHub], Screen[None]]

#: the characters macOS's Option+1/2/3 type (¡, ™, £), and the mode each one means (a fast `ESC 2` is not one of
#: them: `terminal_keys` reads it as `alt+2`, Esc then `2`)
ALT_MODE_KEYS = {"inverted_exclamation_mark": "launch", "trade_mark_sign": "monitor", "pound_sign": "setup"}
#: the digit each of them was typed with (Option+2 is `™`)
ALT_DIGITS = {"inverted_exclamation_mark": "1", "trade_mark_sign": "2", "pound_sign": "3"}


#: readline's word moves, Alt+b / Alt+f, and the keys a text field moves by a word with. Sent as `ESC b` / `ESC f`
#: (xterm, tmux) Textual reads them as ctrl+left / ctrl+right already; under the kitty keyboard protocol Textual asks
#: for (kitty, WezTerm, foot, Ghostty) they come as alt+b / alt+f, which no field binds
WORD_MOVES = {"alt+b": "ctrl+left", "alt+f": "ctrl+right"}


def _escape_joined(event: events.Key) -> str | None:
    """The key typed right after an Esc, when the terminal joined the two into one Alt key (`ESC r` is `alt+r`,
    `ESC /` is `alt+slash`, `ESC 2` is `alt+2` as `terminal_keys` reads them), or the digit of an Option character
    (`™`); None for any other key, and for one already split (it is typed as it is)."""
    if getattr(event, "srt_after_escape", False):
        return None
    if event.key in ALT_DIGITS:
        return ALT_DIGITS[event.key]
    if event.key.startswith("alt+") and event.character and len(event.character) == 1 and event.character.isprintable():
        return event.character
    return None


def _launch(hub: ContextHub) -> Screen[None]:
    from srt_tui.tui.launch.screen import LaunchScreen

    return LaunchScreen(hub)


def _monitor(hub: ContextHub) -> Screen[None]:
    from srt_tui.tui.monitor.screen import MonitorScreen

    return MonitorScreen(hub)


def _setup(hub: ContextHub) -> Screen[None]:
    from srt_tui.tui.setup.screen import SetupScreen

    return SetupScreen(hub)


class SrtTuiApp(ReportsWorkerErrors, ModeApp):
    """The srt-tui app. `clock`, `check_slurm`, `slurm_probe` and `screens` exist so tests and screenshots
    are exact: `screens` replaces a mode's screen factory (e.g. a Monitor fed frozen snapshots)."""

    TITLE = "srt-tui"
    #: absolute (a subclass elsewhere finds them too); the first mode's (Launch's) read with the app's: Textual parses
    #: every stylesheet again when a screen brings one it has not read yet, and twice as the first screen comes
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        str(Path(__file__).with_name("app.tcss")),
        str(Path(__file__).resolve().parent / "launch" / "launch.tcss"),  # as a screen's path reads (resolved)
    ]
    MODE_SCREENS: ClassVar[Mapping[str, ScreenFactory]] = {"launch": _launch, "monitor": _monitor, "setup": _setup}
    DEFAULT_MODE: ClassVar[str] = "launch"
    #: Slurm is asked again this often, so the header follows a controller that goes away or comes back
    SLURM_RECHECK_S: ClassVar[float] = 30.0
    COMMANDS = App.COMMANDS | {SrtCommands, ScreenActions}
    HORIZONTAL_BREAKPOINTS = BREAKPOINTS  # one breakpoint for CSS (-narrow/-wide) and Python (is_wide)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "switch_mode('launch')", "Launch mode", show=False),
        Binding("2", "switch_mode('monitor')", "Monitor mode", show=False),
        Binding("3", "switch_mode('setup')", "Setup mode", show=False),
        Binding("f2", "switch_mode('launch')", "Launch mode", show=False),
        Binding("f3", "switch_mode('monitor')", "Monitor mode", show=False),
        Binding("f4", "switch_mode('setup')", "Setup mode", show=False),
        Binding("question_mark", "help", "Help"),
        # not a character: works in a text field too (a Topology count refuses `?`, and Help was out of reach there);
        # shown in the footer there, where `?` is typed (op12: a k9s user's `?` in a count was refused, the footer
        # said only `^n Next`), and only there: elsewhere `? Help` says it
        Binding("f1", "help('field')", "Help", tooltip="Every key of this screen (works in text fields too)"),
        Binding("f1", "help", "Help", show=False),
        Binding("q", "quit", "Quit"),
        # as in k9s and lazygit: Ctrl-C quits, from a text field too (Textual's default only says "press ^q")
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, tooltip="Quit (works in text fields too)"),
    ]

    def __init__(
        self,
        profile: str | None = None,
        read_only: bool = False,
        *,
        clock: Callable[[], datetime] | None = None,
        check_slurm: bool = True,
        slurm_probe: SlurmProbe | None = None,
        cursor_blink: bool = True,
        screens: Mapping[str, ScreenFactory] | None = None,
    ) -> None:
        super().__init__()
        self.check_slurm = check_slurm
        self.slurm_probe = slurm_probe
        self.cursor_blink = cursor_blink
        self.hub = ContextHub(
            self,
            AppContext(
                clock=clock or datetime.now,
                read_only=read_only,
                profile_spec=profile,
                profile_label=profile or NO_PROFILE,
                slurm_state="checking" if check_slurm else "off",
            ),
        )
        #: which toasts show where: one rule for every screen (toasts.py)
        self.toasts = ToastKeeper(self, waits=_has_no_toasts)
        for mode, make in {**self.MODE_SCREENS, **(screens or {})}.items():
            self.add_mode(mode, partial(make, self.hub))
        #: the keys typed, handed out one at a time (`key_order`)
        self.key_queue = KeyQueue(self, self._route_key)
        self._first_frame_callbacks = []

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this terminal, reading keys with `AltKeysParser`: an Esc joined to `/` or `?` in
        one read is kept (`terminal_keys`)."""
        driver = super().get_driver_class()
        read_keys_with_alt(sys.modules[driver.__module__])
        return driver

    @property
    def context(self) -> AppContext:
        """The app's current context (what the screens see)."""
        return self.hub.context

    #: called once the first frame is drawn (`after_first_frame`); None once it is
    _first_frame_callbacks: list[Callable[[], object]] | None

    def after_first_frame(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the app's first frame is drawn (work that would share the interpreter with it); now
        when it is drawn already."""
        if self._first_frame_callbacks is None:
            callback()
        else:
            self._first_frame_callbacks.append(callback)

    @on(ModeScreen.Drawn)
    def _first_frame_drawn(self) -> None:
        callbacks, self._first_frame_callbacks = self._first_frame_callbacks or [], None
        for callback in callbacks:
            callback()

    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self.toasts.screen_changed, immediate=True)
        # told by the first mode screen drawn (`ModeScreen.Drawn`); at the latest after 2 s, should none be
        self.set_timer(2.0, self._first_frame_drawn)
        if self.check_slurm:
            # after the first frame: the check imports the Slurm layer, in a thread that shared the interpreter
            # with that frame
            self.after_first_frame(self.probe_slurm)
            self.set_interval(self.SLURM_RECHECK_S, self.probe_slurm)

    # -- Slurm reachability (worker) -----------------------------------------------------------------

    @work(thread=True, exclusive=True, group="slurm-check", name="slurm-check", exit_on_error=False)
    def probe_slurm(self) -> None:
        """Ask whether Slurm answers; never on the UI thread."""
        probe = self.slurm_probe
        if probe is None:
            try:
                from srt_tui.slurm.answers import slurm_reachable
            except ImportError as exc:
                self.post_message(SlurmStatus(False, f"srt_tui.slurm.answers is not available ({exc})"))
                return
            probe = slurm_reachable
        try:
            ok, reason, *named = probe()
        except Exception as exc:  # the check must report, never crash the app
            self.post_message(SlurmStatus(False, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(SlurmStatus(ok, reason, named[0] if named else ""))

    def on_slurm_status(self, message: SlurmStatus) -> None:
        """The newest answer (this check, or Setup's probes) sets the context; with the check off it stays off. An
        answer that does not name its cluster (the Monitor's query) keeps the name the last one gave: the same
        slurm.conf answered."""
        if not self.check_slurm:
            return
        cluster = (message.cluster or self.context.slurm_cluster) if message.reachable else ""
        self.hub.update(
            slurm_state="up" if message.reachable else "down", slurm_reason=message.reason, slurm_cluster=cluster
        )

    # -- what every screen shares -------------------------------------------------------------------

    def on_notify(self, event: Notify) -> None:
        """Every toast goes through the app's one rule (toasts.py): held while Help is open, hidden under a dialog."""
        if not self.toasts.raised(event.notification):
            event.prevent_default()  # Textual's own handler would show it now

    def on_worker_failed(self, message: WorkerFailed) -> None:
        """One handler for every worker that died of an exception (a bug): the operator sees it, the log keeps
        it, and no screen needs its own copy."""
        from srt_tui.tui.display import scrub

        self.log.error(f"worker {message.name!r} failed: {message.error!r}")
        self.notify(scrub(f"{message.name} failed: {message.error}"), title="Background task failed", severity="error")

    @on(JobSubmitted)
    async def _show_job(self, message: JobSubmitted) -> None:
        """A job was submitted in Launch: switch to Monitor and open it there."""
        from srt_tui.tui.monitor.screen import MonitorScreen

        await self.switch_mode("monitor")
        base = self.screen_stack[0]
        if isinstance(base, MonitorScreen):
            base.focus_job(message.job_id, message.job_dir)

    @on(SweepSubmitted)
    async def _show_group(self, message: SweepSubmitted) -> None:
        """A sweep was submitted in Launch: switch to Monitor, its rows (the group) listed."""
        from srt_tui.tui.monitor.screen import MonitorScreen

        await self.switch_mode("monitor")
        base = self.screen_stack[0]
        if isinstance(base, MonitorScreen):
            base.focus_group(message.group, dict(message.jobs))

    @on(CloneJob)
    async def _clone(self, message: CloneJob) -> None:
        """A job cloned in Monitor: Launch opens on its preview, the recipe, profile and topology filled in."""
        from srt_tui.tui.launch.screen import LaunchScreen

        await self.switch_mode("launch")
        base = self.screen_stack[0]
        if isinstance(base, LaunchScreen):
            await base.clone(message.cloned, message.prepared, message.launcher)

    # -- keys and modes -----------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        """Every key typed goes through the key queue: one at a time, each done before the next (`key_order`)."""
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            await self.key_queue.typed(event)
            return
        await super().on_event(event)

    async def _route_key(self, event: Typed) -> None:
        """A fast Esc then a key reaches the app as one Alt key (`ESC 2` is `alt+2`): it is Esc, then the key, each
        acting where the one before left the focus. A macOS Option digit (`™`) switches mode before any focused input
        sees it (a binding cannot: an input claims printable keys)."""
        if isinstance(event, events.Key) and (word := self._word_move(event)) is not None:
            event.stop()  # in a text field, Alt+b / Alt+f move a word as in readline (Esc alone still goes back)
            await self.key_queue.typed(events.Key(word, None))
            return
        if isinstance(event, events.Key) and (plain := _escape_joined(event)) is not None:
            event.stop()
            if event.key in ALT_MODE_KEYS and not self.screen.is_modal:
                await self.switch_mode(ALT_MODE_KEYS[event.key])
                return
            # Esc, then the key, as typed: Help or a dialog closes before the mode switches (a mode switched under
            # Help left it open there, and the next `?` crashed), a filter closes before `r` reloads
            again = events.Key(plain if plain.isalnum() else _character_to_key(plain), plain)
            setattr(again, "srt_after_escape", True)  # noqa: B010 - a mark on Textual's event, read below
            for key in (events.Key("escape", "\x1b"), again):
                await self.key_queue.typed(key)
            return
        if isinstance(event, events.Key) and not event.is_forwarded and event.key == "escape":
            self.toasts.went_back()  # Esc goes back: the toasts on screen were seen (toasts.py)
        await super().on_event(event)

    def _word_move(self, event: events.Key) -> str | None:
        """The key that moves a word in the focused text field for readline's Alt+b / Alt+f (`WORD_MOVES`); None
        elsewhere, where they mean what they meant."""
        from textual.widgets import Input

        if getattr(event, "srt_after_escape", False) or not isinstance(self.focused, Input):
            return None
        return WORD_MOVES.get(event.key)

    @on(HoldKeys)
    def _hold_keys(self, message: HoldKeys) -> None:
        self.key_queue.hold(message.hold)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """With cursor_blink off (tests, screenshots) no text cursor blinks, so frames are reproducible."""
        if not self.cursor_blink and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands but its `Keys` side panel: one help, `?`'s (the palette's `Help: keys`)."""
        return [c for c in super().get_system_commands(screen) if c.title != "Keys"]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`f1 Help` is shown in a text field only (`help('field')`); the other F1 binding works everywhere."""
        if action == "help" and parameters == ("field",):
            from textual.widgets import Input

            return isinstance(self.screen.focused, Input)
        return True

    def action_help(self, _where: str = "") -> None:
        from srt_tui.tui.help_screen import HelpScreen, KeyHelp, collect_keys, with_fields

        if isinstance(self.screen, HelpScreen):
            return
        active = dict(self.screen.active_bindings)
        for key, bindings in self._bindings.key_to_bindings.items():  # the app's priority keys win over a screen's
            for binding in bindings:  # (a modal's chain lists Textual's `ctrl+c` Copy, which the app's Quit beats)
                if binding.priority and key in active:
                    active[key] = ActiveBinding(self, binding, True, binding.tooltip)
        display = {key: self.get_key_display(active[key].binding) for key in active}
        legend = getattr(self.screen, "HELP_LEGEND", "")
        columns = getattr(self.screen, "HELP_COLUMNS", ())  # what its tables' headers mean (the Monitor's)
        rows = collect_keys(dict(active), display)
        fields = getattr(self.screen, "help_rows", None)  # what a screen's fields mean (the wizard's steps)
        if callable(fields):
            rows = with_fields(rows, [KeyHelp(*row) for row in fields()])
        self.push_screen(HelpScreen(rows, legend if isinstance(legend, str) else "", columns))


def _collect_from_here() -> None:
    """The collector back on, what the start made frozen first: the modules, the app and its first screen live as long
    as the process, and a pass that walked them all again was 25-30 ms of CPU."""
    gc.freeze()
    gc.enable()


def _has_no_toasts(screen: Screen[object]) -> bool:
    """Help and the command palette raise no toast of their own: one raised while they are open waits for them."""
    from srt_tui.tui.help_screen import HelpScreen

    return isinstance(screen, HelpScreen | CommandPalette)


class SetupFirstApp(SrtTuiApp):
    """The app opened on Setup mode (`srt-tui setup` on a terminal); `1`/`2` reach the other modes as ever."""

    DEFAULT_MODE: ClassVar[str] = "setup"


def run_app(args: argparse.Namespace, setup: ScreenFactory | None = None) -> int:
    """Run the TUI (`srt-tui` with no subcommand; with `setup`, `srt-tui setup`: opened on Setup mode, its screen
    made by `setup`); returns the process exit code: 70 (an internal error, as the command line's) when the app
    ended on an exception Textual has just shown."""
    if setup is None:
        app = SrtTuiApp(profile=args.profile, read_only=args.read_only)
    else:
        app = SetupFirstApp(profile=args.profile, read_only=args.read_only, screens={"setup": setup})
    # the collector off until the first frame is drawn (`srt-tui` turned it off before importing Textual): its
    # passes were ~60 ms of CPU before that frame, one of them a full pass over everything imported
    gc.disable()
    app.after_first_frame(_collect_from_here)
    app.run()
    if app.return_code:
        print("srt-tui: internal error (a bug in srt-tui: please report it, with the lines above)", file=sys.stderr)
        return 70
    return 0
