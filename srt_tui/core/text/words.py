"""The `/` filter every list shares (jobs, Slurm jobs, recipes): words a row's text must hold, k9s style."""


def matches_words(text: str, query: str) -> bool:
    """k9s-style filter of a row's text: every word of ``query`` must appear in it (case-insensitive), and a
    `!word` must not."""
    text = text.lower()
    for word in query.lower().split():
        if word.startswith("!") and len(word) > 1:
            if word[1:] in text:
                return False
        elif word not in text:
            return False
    return True
