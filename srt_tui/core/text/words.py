"""The `/` filter every list shares (jobs, Slurm jobs, recipes): words a row's text must hold, k9s style."""

from collections.abc import Sequence


def query_words(query: str) -> tuple[list[str], list[str]]:
    """The words of ``query`` a row must hold and the `!words` it must not, lower-case."""
    wanted: list[str] = []
    excluded: list[str] = []
    for word in query.lower().split():
        if word.startswith("!") and len(word) > 1:
            excluded.append(word[1:])
        else:
            wanted.append(word)
    return wanted, excluded


def matches_words(text: str, query: str) -> bool:
    """k9s-style filter of a row's text: every word of ``query`` must appear in it (case-insensitive), and a
    `!word` must not."""
    text = text.lower()
    wanted, excluded = query_words(query)
    return all(w in text for w in wanted) and not any(w in text for w in excluded)


def nothing_matches(noun: str, query: str) -> str:
    """What a filterable list says where its rows would be when its `/` filter leaves none of them: `No job matches
    'tmp/nonexist' · Esc clears`, the same words on every list. (The all-jobs list said `No Slurm jobs of root
    (queued, running, or recently ended).` over a status line of `0 of 12 jobs`.)"""
    return f"No {noun} matches {query!r} · Esc clears"


def name_rank(name: str, query: str) -> int:
    """How well a row's name answers ``query``, best first, so the cursor goes to the row the operator named:
    0 the name is the query, 1 it starts with it, 2 it holds every word each at a word's start, 3 it holds every
    word, 4 a word starts a word of it (the rest matched elsewhere), 5 the words matched elsewhere only.
    (`/gb300 2p1d` put the cursor on `disagg-12p1d-…`: `2p1d` inside `12p1d` ranked as `…-2p1d-…` did.)"""
    wanted, _ = query_words(query)
    name = name.lower()
    if not wanted or name == " ".join(wanted):
        return 0
    held = [w for w in wanted if w in name]
    starting = [w for w in held if _starts_a_word(name, w)]
    if len(held) < len(wanted):
        return 4 if starting else 5
    if name.startswith(wanted[0]):
        return 1
    return 2 if len(starting) == len(wanted) else 3


def _starts_a_word(text: str, word: str) -> bool:
    """Whether ``word`` occurs in ``text`` at its start or after a character that is not a letter or digit."""
    at = text.find(word)
    while at != -1:
        if at == 0 or not text[at - 1].isalnum():
            return True
        at = text.find(word, at + 1)
    return False


#: one more than the worst `name_rank`: a row with no name to rank
RANKS = 6


def best_named(rows: Sequence[Sequence[str]], query: str) -> int | None:
    """Index of the row whose names (a job's id and its name) answer ``query`` best, the first of equals (the list's
    order): an exact id or name, then one that starts with the query, then one that holds it (`name_rank`); None for
    no row. (`/5` in the Monitor left the cursor on job 8, the first row, whose sweep group `msw-316509` holds `5`,
    above job 5.)"""
    ranks = [min((name_rank(name, query) for name in names), default=RANKS) for names in rows]
    return ranks.index(min(ranks)) if ranks else None
