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
