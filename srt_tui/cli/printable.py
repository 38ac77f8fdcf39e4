"""One printable line, whatever a file name or a message holds (shared by the command line's outputs)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from srt_tui.core.errors import SrtError


def printable(text: str) -> str:
    """Control characters (a newline in a name) are escaped, so one message stays one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def warn_plan(prep: Any, host_programs: bool = False) -> None:
    """The plan's warnings (and with `host_programs`, the programs this machine lacks for it), one
    `srt-tui: warning:` line each on stderr: in the middle of a 600-line dry-run on stdout, or under `> file`,
    they went unseen."""
    problems = list(prep.plan.warnings)
    if host_programs:
        from srt_tui.core.plan.host_programs import missing_programs

        problems += [m.problem() for m in missing_programs(prep.plan)]
    for problem in problems:
        print(f"srt-tui: warning: {printable(problem.render())}", file=sys.stderr)


def say_unknown(unknown: list[SrtError]) -> int:
    """Each unknown JOB's `srt-tui: error:` line on stderr, after what was printed of the known ones (stdout flushed
    first, so a terminal shows them in that order); the exit code: 2 (bad input, as one unknown JOB alone) when
    there is one, else 0."""
    sys.stdout.flush()  # a closed pipe shows up here, as main reports it
    for exc in unknown:
        for problem in exc.problems:
            print(f"srt-tui: error: {printable(problem.render())}", file=sys.stderr)
    return 2 if unknown else 0
