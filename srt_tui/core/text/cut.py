"""Text cut to a width at a word, never mid-word: table cells, and a log line quoted as the reason a process ended."""

from __future__ import annotations

#: where a value may be cut: after a whole word (a blank), or between the parts of a name (`h100-2p1d-sglang`);
#: not inside a count (`1/2`) or a number
WORD_BREAKS = " -_"


def cut_at_word(text: str, width: int) -> str:
    """``text`` in ``width`` cells, never cut mid-word (issue 21: `workers he…`, `router sta…` at 80 columns):
    whole, else its longest head of whole words and `…` (`serving …`, `h100-2p1d-…`, `mocker-2p1d…`); a value of
    one word longer than its column, with nothing to cut between, keeps its start and `…`."""
    if len(text) <= width:
        return text
    if width < 1:
        return ""
    best = ""
    for i, ch in enumerate(text):
        if ch not in WORD_BREAKS or i == 0 or text[i - 1] in WORD_BREAKS:
            continue
        head = text[:i].rstrip(WORD_BREAKS)
        # a blank stays before the `…` (`serving…` would read as a word cut); a name's `-` stays when it fits
        for shown in (head + ch + "…", "" if ch == " " else head + "…"):
            if shown and len(shown) <= width and len(shown) > len(best):
                best = shown
                break
    return best or text[: width - 1] + "…"
