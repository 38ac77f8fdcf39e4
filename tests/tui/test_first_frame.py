"""The first frame (issue 22: the first screen within srtctl's first prompt, a screenful of recipes in <= 0.5 s), as
mechanisms rather than times: nothing is rendered and thrown away while the app starts, the rows the reader process
sent by then are in the first frame (no loading indicator comes and goes), the first screen composes no hidden
filter field and recomposes its footer only when its keys change, and it imports none of what it does not show."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import RenderableType
from textual.app import App
from textual.screen import Screen

from srt_tui.tui.launch import recipe_reader
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app


@pytest.fixture(autouse=True)
def _no_reader_left() -> Any:
    yield
    reader, recipe_reader._early = recipe_reader._early, None
    if reader is not None:
        reader.close()


def _frames(monkeypatch: pytest.MonkeyPatch, seen: Any = None) -> list[tuple[bool, bool]]:
    """Every frame Textual hands to the terminal: (the app had started, something was rendered); `seen(app)` is
    called at the first one drawn."""
    frames: list[tuple[bool, bool]] = []
    display = App._display

    def recording(app: App[Any], screen: Screen[Any], renderable: RenderableType | None) -> None:
        drawn = renderable is not None and not app._batch_count
        if drawn and seen is not None and not any(s and d for s, d in frames):
            seen(app)
        frames.append((app._is_mounted, renderable is not None))
        display(app, screen, renderable)

    monkeypatch.setattr(App, "_display", recording)
    return frames


@pytest.mark.parametrize("profile", ["local", None], ids=["recipes", "profiles"])
async def test_no_frame_is_rendered_before_the_app_has_started(monkeypatch: pytest.MonkeyPatch, profile: str) -> None:
    """Textual rendered the first screen two or three times while the app was starting and threw each frame away
    (nothing is drawn then): a mode's screen renders once the app has started, and that frame is drawn."""
    frames = _frames(monkeypatch)
    async with make_app(profile).run_test(size=(120, 36)) as pilot:
        await settle(pilot)
    assert [f for f in frames if not f[0] and f[1]] == []  # rendered while starting
    assert (True, True) in frames
