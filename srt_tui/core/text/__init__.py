"""Plain-text views of a plan shared by the CLI and the TUI: the dry-run report, tables, role letters, and the
`/` filter's word match every list shares."""
