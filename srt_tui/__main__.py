"""`python -m srt_tui`: the `srt-tui` command, through the same entry point as the console script."""

from srt_tui.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
