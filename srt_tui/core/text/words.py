"""The `/` filter every list shares (jobs, Slurm jobs, recipes): words a row's text must hold, k9s style."""


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


def name_rank(name: str, query: str) -> int:
    """How well a row's name answers ``query``, best first, so the cursor goes to the row the operator named:
    0 the name is the query, 1 it starts with it, 2 it holds every word, 3 the words matched elsewhere only."""
    wanted, _ = query_words(query)
    name = name.lower()
    if not wanted or name == " ".join(wanted):
        return 0
    if not all(w in name for w in wanted):
        return 3
    return 1 if name.startswith(wanted[0]) else 2
