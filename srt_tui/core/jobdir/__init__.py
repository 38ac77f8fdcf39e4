"""The job directory: writing it atomically, its typed documents, finding one, and the status.jsonl event log."""
