"""The full-screen log viewer (Monitor's `l`): one job's logs, followed, searched, switched."""
