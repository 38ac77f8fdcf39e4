"""The Topology step's Help describes its fields (issue 21, pass 7): workers, nodes, GPUs and TP per role, the
presets and the router, as Help lists the other steps' keys; and F1 opens it from a role field, where `?` is
refused (the counts take digits only)."""

from __future__ import annotations

from textual.widgets import Input, Label

from srt_tui.tui.help_screen import HelpScreen
from tests.tui.scenarios import NVIDIA, reach, settle
from tests.tui.tui_helpers import make_app


async def test_help_on_the_topology_step_says_what_each_field_means() -> None:
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, "topology", typed=False)
        heads = [str(label.render()) for label in app.screen.query(".form-head").results(Label)]
        assert heads == ["role", "workers", "nodes", "GPUs", "TP"]
        await pilot.press("question_mark")  # on the presets list, where the step starts
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        fields = {r.key: r.description for r in app.screen.rows if r.scope == "Topology step"}
        assert set(heads) | {"Presets", "Router"} <= set(fields)
        assert "2 prefill workers and 1 decode worker" in fields["workers"]
        assert "GPUs per worker" in fields["GPUs"] and "Tensor-parallel" in fields["TP"]
        scopes = [r.scope for r in app.screen.rows]
        assert scopes.index("Topology step") < scopes.index("everywhere")  # the step's own, before the app's keys


async def test_f1_opens_help_from_a_role_field() -> None:
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, "topology", typed=False)
        field = app.screen.query_one("#prefill-workers", Input)
        field.focus()
        before = field.value
        await pilot.press("question_mark")  # a count: `?` is refused, and stays in the field's hands
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen) and field.value == before
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert any(r.scope == "Topology step" and r.key == "workers" for r in app.screen.rows)
