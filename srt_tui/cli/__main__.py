"""`python -m srt_tui.cli`: the same entry point as the `srt-tui` command."""

from srt_tui.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
