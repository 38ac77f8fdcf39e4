"""The `/` filter of a wizard step's list (the Profile step's table, the Recipe step's tree): one behaviour for both.

`/` shows the field and remembers the row under the cursor; typing narrows the list, its cursor on the best-named
row, drawn as the highlighted row while the field has the keys (it is the row Enter takes); Enter on a filter naming
a row exactly chooses it (an operator typed `/mocker-1p1d` Enter and needed a second Enter), otherwise the list takes
the keys; Esc clears and closes it: typed in the field, Esc cancels it (the cursor goes back to the row it was on
before `/`), after Enter the row under the cursor stays.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.widget import Widget
from textual.widgets import Input

from srt_tui.core.text.words import name_rank
from srt_tui.tui.launch.steps.base import WizardStep


class FilterStep(WizardStep):
    """A wizard step whose list has the `/` filter. The step names its field (`filter_id`) and its list
    (`filter_list_id`), says which row the cursor is on (`_cursor_row`) and refills its list (`_filter_typed`,
    `_filter_closed`)."""

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
        """The row under the list's cursor: its key (what `_filter_closed` finds it by) and its name (what Enter
        compares with the filter); None when the cursor is on no row."""
        raise NotImplementedError

    def _filter_typed(self) -> None:
        """The list narrowed to `query_text`, its cursor on the best-named row."""
        raise NotImplementedError

    def _filter_closed(self, keep: str | None) -> None:
        """The whole list again, its cursor on the row of key ``keep`` (None: where the step puts it), focused."""
        raise NotImplementedError

    def _filter_stays(self) -> bool:
        """Whether Enter leaves the keys with the field (the step says why): by default the list takes them."""
        return False

    def _field(self) -> Input | None:
        """The filter field, once `/` has made it (a hidden field composed with the step cost the first frame its
        widget, styles and stylesheet)."""
        found = self.query(f"#{self.filter_id}")
        return found.first(Input) if found else None

    async def action_filter(self) -> None:
        row = self._cursor_row()
        if row is not None:
            self._before_filter = row[0]
        field = self._field()
        if field is None:  # made at the first `/`, above the list it narrows
            field = Input(placeholder=self.filter_placeholder, id=self.filter_id)
            listed = self.query_one(f"#{self.filter_list_id}")
            assert isinstance(listed.parent, Widget)
            await listed.parent.mount(field, before=listed)
        field.display = field.can_focus = True
        # the list's cursor row drawn as when the list has the focus: it is the row Enter takes (a dim cursor 20 rows
        # down read as no cursor at all, and the operator took the first row for the one chosen)
        self.add_class("-filtering")
        field.focus()  # its text selected: what is typed replaces it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_filter":
            field = self._field()
            return field is not None and field.display
        return super().check_action(action, parameters)

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
        """Enter on a filter that names a row exactly chooses it; otherwise the list takes the keys, its cursor on
        the best-named row."""
        if event.input.id != self.filter_id:
            return
        event.stop()
        if self._filter_stays():
            return
        self.query_one(f"#{self.filter_list_id}").focus()
        row = self._cursor_row()
        if row is not None and name_rank(row[1], self.query_text) == 0:
            self.confirm()
