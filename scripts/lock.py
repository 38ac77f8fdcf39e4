"""Write constraints.txt: the exact versions of everything `make deps` installs, read from this environment.

`make deps` and `.ci/run` install with `-c constraints.txt`, so a fresh machine gets the versions the suite was
written against (a new PyYAML or Pygments changed messages and highlighted snapshots). Run it after changing a
requirement: `python scripts/lock.py` (it walks srt-tui's declared requirements and extras, transitively).
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
#: the extras `make deps` installs (pyslurm needs Slurm 25.11 and is installed by the CI leg that uses it)
EXTRAS = ("test", "dev", "dynamo", "demo")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure() -> dict[str, str]:
    """Every installed distribution srt-tui[EXTRAS] pulls in, with its version (srt-tui itself left out)."""
    pinned: dict[str, str] = {}
    todo = [(canonical("srt-tui"), frozenset(EXTRAS))]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            sys.exit(f"lock: {name} is required but not installed here: run `make deps` first")
        if name != "srt-tui":
            pinned[name] = dist.version
        for raw in dist.requires or []:
            req = Requirement(raw)
            envs = [{"extra": e} for e in extras] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((canonical(req.name), frozenset(req.extras)))
    return pinned


def main() -> int:
    pinned = closure()
    lines = [f"{name}=={version}" for name, version in sorted(pinned.items())]
    header = "# written by scripts/lock.py from a tested environment: pins for `pip install -c constraints.txt`\n"
    (REPO / "constraints.txt").write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"constraints.txt: {len(lines)} pins")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
