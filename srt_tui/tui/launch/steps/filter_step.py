"""The `/` filter of a wizard step's list (the Profile step's table, the Recipe step's tree): one behaviour for both.

`/` shows the field and remembers the row under the cursor; typing narrows the list, its cursor on the best-named
row, drawn as the highlighted row while the field has the keys; Enter takes that row as Enter on the list does (the
profile chosen, the recipe chosen and Topology opened: the profile list needed a second Enter where the recipe list
took one, unless the filter named the row exactly); a filter that matches nothing says so and keeps the keys. Esc
clears and closes it: typed in the field, Esc cancels it (the cursor goes back to the row it was on before `/`).
↑/↓ move the highlighted row while typing; Tab gives the keys to the filtered list without choosing. A step whose
list is still being read may make Enter wait for the rest (`_enter_waits`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Input

from srt_tui.tui.launch.steps.base import WizardStep
from srt_tui.widgets.filter_field import FilterField


class FilterStep(WizardStep):
    """A wizard step whose list has the `/` filter. The step names its field (`filter_id`) and its list
    (`filter_list_id`), says which row the cursor is on (`_cursor_row`) and refills its list (`_filter_typed`,
    `_filter_closed`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "filtered_cursor(1)", "Next match", show=False),
        Binding("up", "filtered_cursor(-1)", "Previous match", show=False),
    ]
    #: the filter field's id, the id of the list it narrows, and what the field says while empty
    filter_id: ClassVar[str] = ""
    filter_list_id: ClassVar[str] = ""
    filter_placeholder: ClassVar[str] = ""
    #: what the filter holds ('' when closed)
    query_text = ""
    #: the row the cursor was on when `/` opened the filter: Esc while typing goes back to it (a filter answered
    #: with `mocker-1p1d`, or with nothing, had Esc leave the cursor there, not on the row chosen before)
    _before_filter: str | None = None

    def _cursor_row(self) -> tuple[str, str] | None:
        """The row under the list's cursor: its key (what `_filter_closed` finds it by) and its name; None when the
        cursor is on no row."""
        raise NotImplementedError

    def _filter_typed(self) -> None:
        """The list narrowed to `query_text`, its cursor on the best-named row."""
        raise NotImplementedError

    def _filter_closed(self, keep: str | None) -> None:
        """The whole list again, its cursor on the row of key ``keep`` (None: where the step puts it), focused."""
        raise NotImplementedError

    def _enter_waits(self) -> bool:
        """Whether Enter in the filter waits for rows still being read (the step then calls `take_filtered` once
        they are in): by default it acts at once."""
        return False

    def _field(self) -> Input | None:
        """The filter field, once `/` has made it (a hidden field composed with the step cost the first frame its
        widget, styles and stylesheet)."""
        found = self.query(f"#{self.filter_id}")
        return found.first(Input) if found else None

    def take_filtered(self) -> None:
        """Enter in the filter: the highlighted row taken as Enter on the list takes it; none (the filter matches
        nothing) is said, and the field keeps the keys."""
        if self._cursor_row() is None:
            self.confirm()  # says why nothing can be chosen
            return
        self.query_one(f"#{self.filter_list_id}").focus()
        self.confirm()

    async def action_filter(self) -> None:
        row = self._cursor_row()
        if row is not None:
            self._before_filter = row[0]
        field = self._field()
        if field is None:  # made at the first `/`, above the list it narrows
            field = FilterField(placeholder=self.filter_placeholder, id=self.filter_id)
            listed = self.query_one(f"#{self.filter_list_id}")
            assert isinstance(listed.parent, Widget)
            await listed.parent.mount(field, before=listed)
        field.display = field.can_focus = True
        # the list's cursor row drawn as when the list has the focus: it is the row Enter takes (a dim cursor 20 rows
        # down read as no cursor at all, and the operator took the first row for the one chosen)
        self.add_class("-filtering")
        field.focus()  # its text selected: what is typed replaces it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        field = self._field() if action in ("close_filter", "filtered_cursor") else None
        if action == "close_filter":
            return field is not None and field.display
        if action == "filtered_cursor":  # the list moves its own cursor when it has the keys
            return field is not None and field.has_focus
        return super().check_action(action, parameters)

    def action_filtered_cursor(self, step: int) -> None:
        """↑/↓ while typing: the highlighted row, the one Enter takes, moves to the next row (a folder is passed
        over), the keys staying with the field. (Tab gives them to the list, the filter kept.)"""
        widget = self.query_one(f"#{self.filter_list_id}")
        move: Callable[[], object] = getattr(widget, "action_cursor_down" if step > 0 else "action_cursor_up")
        for _ in range(1000):
            before = _cursor_line(widget)
            move()
            if self._cursor_row() is not None or _cursor_line(widget) == before:
                return

    def action_close_filter(self) -> None:
        """Esc: the filter cleared and closed. Typed in the filter, Esc cancels it: the cursor goes back to the row
        it was on before `/`; after Enter (the list has the keys) the row under the cursor stays."""
        field = self._field()
        row = self._cursor_row()
        back = (field is not None and field.has_focus) or row is None
        keep = self._before_filter if back and self._before_filter is not None else (row[0] if row else None)
        self._hide_filter()
        self._filter_closed(keep)

    def _hide_filter(self) -> None:
        """The field emptied (without a Changed: the list is refilled once, by the caller) and hidden."""
        field = self._field()
        if field is not None:
            with field.prevent(Input.Changed):
                field.value = ""
            field.display = field.can_focus = False
        self.remove_class("-filtering")
        self.query_text = ""

    @on(Input.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        if event.input.id != self.filter_id:
            return
        event.stop()
        self.query_text = event.value
        self._filter_typed()

    @on(Input.Submitted)
    def _filter_submitted(self, event: Input.Submitted) -> None:
        """Enter takes the highlighted row (`take_filtered`), now or once the rows it waits for are in."""
        if event.input.id != self.filter_id:
            return
        event.stop()
        if not self._enter_waits():
            self.take_filtered()


def _cursor_line(widget: Widget) -> int:
    """The line of a list's cursor (a tree's `cursor_line`, a table's `cursor_row`)."""
    return int(getattr(widget, "cursor_line", getattr(widget, "cursor_row", -1)))
