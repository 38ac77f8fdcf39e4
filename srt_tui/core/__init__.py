"""srt_tui.core."""
