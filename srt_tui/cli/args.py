"""Arguments several commands share, declared once so their spelling, choices and help stay the same."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable


def add_transport_argument(parser: argparse.ArgumentParser) -> None:
    """`--transport auto|cli|pyslurm`: how a command that asks Slurm talks to it."""
    parser.add_argument(
        "--transport",
        default="auto",
        choices=["auto", "cli", "pyslurm"],
        help="Slurm transport (default: pyslurm if importable, else the command line)",
    )


def seconds(least: float = 0.0, most: float | None = None, *, zero: str | None = None) -> Callable[[str], float]:
    """An argparse type for a number of seconds: finite, above 0 and from ``least`` to ``most``, or 0 when ``zero``
    says what 0 means (`no limit`). What does not fit is refused as the other numeric options refuse theirs: exit 2,
    one line naming the flag (argparse's) and the range (`-5 s: give 0 (no limit) or more seconds`)."""
    if most is not None:
        want = f"give {least:g} to {most:g} seconds"
    elif zero is not None:
        want = f"give 0 ({zero}) or more seconds"
    else:
        want = f"give more than {least:g} seconds" if least == 0 else f"give {least:g} or more seconds"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if value == 0 and zero is not None:
            return 0.0
        if not (math.isfinite(value) and value > 0 and value >= least and (most is None or value <= most)):
            raise argparse.ArgumentTypeError(f"{text} s: {want}")
        return value

    return parse


def path_arg(text: str) -> str:
    """The argparse type of every path option: a leading `~` expanded, because the shell leaves `--write=~/x`
    (a `~` after `=`) alone while it expands `--write ~/x`: both mean the same path. Anything else is kept."""
    return os.path.expanduser(text) if text.startswith("~") else text


def alias_path_arg(text: str) -> str:
    """`ALIAS=PATH` with the PATH's leading `~` expanded as `path_arg` does (`--model=m=~/w` as `--model m=~/w`)."""
    alias, sep, path = text.partition("=")
    return f"{alias}{sep}{path_arg(path)}" if sep else text
