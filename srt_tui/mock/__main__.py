"""``python -m srt_tui.mock``: a mock worker (``serve``, the default), the load generator (``bench``) or a
mock GPU exporter (``exporter``)."""

from __future__ import annotations

import sys

from srt_tui.mock.cli import main

if __name__ == "__main__":
    sys.exit(main())
