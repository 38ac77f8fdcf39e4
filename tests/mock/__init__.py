"""Tests of the mocker engine (srt_tui.mock): real worker and router processes on loopback."""
