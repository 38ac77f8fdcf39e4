"""The terminal's keys as Textual's parser reads them, but an Esc joined to a punctuation key is kept.

A fast Esc then a key reaches the app in one read (`tmux send-keys Escape /`, a burst over ssh). Textual's parser
reads `ESC r` as `alt+r`, but for a key whose name is a word (`ESC /` is `slash`, `ESC ?` is `question_mark`) it
drops the Alt (Textual issue 6663, 8.2.8): the Esc was lost and the `/` typed into the field the Esc was to leave.
`AltKeysParser` keeps it (`alt+slash`, character `/`), which the app splits into Esc, then the key, as it splits
`alt+r` (`SrtTuiApp._route_key`). An Esc read with Enter or a Ctrl key was dropped too (`ESC ^N` read as `ctrl+n`,
`ESC Enter` as `enter`): on the Submit step `Esc ^N` in one burst submitted the job the Esc was to leave. Those
come out as two keys, Esc then the key. (`ESC Tab` and `ESC Backspace` keep Textual's meaning: shift+tab and the
word-deleting ctrl+w.)

An Esc read with a digit, `-` or `=` is an Alt key too: Textual reads `ESC 3` as `£` (`ESC 2` as `™`, `ESC -` as `–`:
the characters WezTerm's Option key types on macOS), a key the app took as a mode switch with no Esc. `Esc Esc 3`
typed fast (the second Esc 60 ms after the first, the `3` within the 100 ms Textual waits after an Esc) switched to
Setup without the second Esc: the Launch wizard stayed on the step that Esc was to leave. It is `alt+3` (character
`3`), which the app splits into Esc, then `3`, as typed.

An Esc that arrives while the one before still waits for its key (`Enter Esc Enter Esc` in one read: `ESC CR` is
undecided until the next byte) made Textual re-issue the first as text, its Esc as a literal `^`
(`circumflex_accent`): the Monitor opened a job, skipped the Esc, opened the worker's detail and closed it, and
stayed in the job view. That Esc stays an Esc.

A line feed is Enter (as readline's C-j is): keys typed while `srt-tui` starts, before Textual puts the terminal in
raw mode, pass the terminal's line discipline, which turns Enter's CR into LF (`ICRNL`). `srt-tui -p PROFILE`, then
`/mocker-1p1d` Enter `e` typed at once, read `ctrl+j` for that Enter, and the `e` went into the filter.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from types import ModuleType

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._parser import Peek1, Read1, TokenCallback
from textual._xterm_parser import XTermParser
from textual.message import Message

#: the character of the Esc key
ESC = "\x1b"
#: the Enter key as the terminal's line discipline sends it before raw mode (`ICRNL`): Textual reads it as `ctrl+j`
LINE_FEED = "ctrl+j"


class AltKeysParser(XTermParser):
    """Textual's parser, but an Esc read with a printable key always makes an Alt key (`ESC /` is `alt+slash`), and
    one read with Enter or a Ctrl key is Esc, then that key; an Esc re-issued as text (`^`) is an Esc; a line feed is
    Enter."""

    def __init__(self, debug: bool = False) -> None:
        #: Textual is re-issuing an undecided `ESC …` as text: the `^` it makes of that Esc next is the Esc
        self._escape_as_text = False
        super().__init__(debug)

    def parse(self, token_callback: TokenCallback[Message]) -> Generator[Read1 | Peek1, str, None]:
        """Textual's parse; the `^` it makes of a re-issued Esc comes out as the Esc."""

        def token(message: Message) -> None:
            if self._escape_as_text and isinstance(message, events.Key) and message.key == "circumflex_accent":
                message = events.Key("escape", ESC)
            self._escape_as_text = False
            token_callback(message)

        return super().parse(token)

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        for event in self._alt_keys(sequence, alt):
            yield events.Key("enter", "\r") if event.key == LINE_FEED else event

    def _alt_keys(self, sequence: str, alt: bool) -> Iterable[events.Key]:
        # Textual asks for a lone Esc without Alt only to re-issue an undecided sequence as text, and turns the
        # Esc key this yields into `^` before passing it on (`reissue_sequence_as_keys`)
        self._escape_as_text = sequence == ESC and not alt
        if _option_character(sequence):  # `ESC 3`: the key `3` typed with an Esc (alt+3), not `£`
            yield from self._alt_keys(sequence[1], alt=True)
            return
        for event in super()._sequence_to_key_events(sequence, alt):
            if not alt or event.key.startswith("alt+") or event.key == "escape":
                yield event
            elif event.is_printable:
                yield events.Key(f"alt+{event.key}", event.character)
            else:
                yield events.Key("escape", ESC)
                yield event


def _option_character(sequence: str) -> bool:
    """`ESC` and a key Textual reads as another character (`ESC 3` is `£`: macOS Option characters, from WezTerm)."""
    return len(sequence) == 2 and sequence[0] == ESC and isinstance(ANSI_SEQUENCES_KEYS.get(sequence), str)


def read_keys_with_alt(driver_module: ModuleType) -> None:
    """Make a Textual driver module (`textual.drivers.linux_driver`) read its keys with `AltKeysParser`: its input
    thread builds the parser by this module-level name, and offers no other way in."""
    if getattr(driver_module, "XTermParser", None) is XTermParser:
        setattr(driver_module, "XTermParser", AltKeysParser)  # noqa: B010 - a module's name, set as it reads it
