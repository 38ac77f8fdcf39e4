"""srt_tui.monitor."""
