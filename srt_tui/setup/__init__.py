"""Guided cluster setup, headless: probe the cluster, propose a profile with evidence, check a profile.

Nothing here imports Textual; the TUI's Setup mode and `srt-tui setup`/`doctor` both call these modules.
"""
