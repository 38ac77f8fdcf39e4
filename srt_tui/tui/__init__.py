"""srt_tui.tui."""
