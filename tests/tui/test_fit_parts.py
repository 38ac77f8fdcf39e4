"""Parts of a line fitted whole: a status line leaves out whole parts, packed parts wrap whole (operator pass,
issue 21: the worker detail's ports wrapped between `kv_events` and its `5200`)."""

from __future__ import annotations

from srt_tui.widgets.fit_parts import fit_parts, pack_parts


def test_packed_parts_wrap_whole_never_between_a_label_and_its_figure() -> None:
    ports = ["http 6100", "bootstrap 7200", "kv_events 5200", "system 7500"]
    lines = pack_parts(ports, 30, "  ")
    assert lines == ["http 6100  bootstrap 7200", "kv_events 5200  system 7500"]
    assert all(len(line) <= 30 for line in lines)
    assert pack_parts(ports, None, "  ") == ["  ".join(ports)]  # no width: one line
    assert pack_parts(["a-part-wider-than-the-line"], 5) == ["a-part-wider-than-the-line"]  # alone, not cut
    assert pack_parts(["TTFT 47 ms", "E2E 90 ms"], 15) == ["TTFT 47 ms", "E2E 90 ms"]


def test_a_status_line_leaves_out_whole_optional_parts_in_order() -> None:
    parts = ["4 jobs", "s sort / filter", "Enter: job view", "read in 0.12 s"]
    assert fit_parts(parts, 80, ("read in", "s sort")) == " · ".join(parts)
    assert fit_parts(parts, 40, ("read in", "s sort")) == "4 jobs · Enter: job view"


def test_the_first_wording_that_fits_else_the_shortest() -> None:
    from srt_tui.widgets.fit_parts import first_fitting

    wordings = ["'q': match 1 of 3 lines · n/N next/previous", "'q': match 1 of 3 lines"]
    assert first_fitting(wordings, 80) == wordings[0]
    assert first_fitting(wordings, 30) == wordings[1]
    assert first_fitting(wordings, 10) == wordings[1]  # none fits: the shortest, cut by the widget
    assert first_fitting(["日本語のログ", "ログ"], 8) == "ログ"  # cells, not characters
