"""srt_tui.widgets."""
