"""The job directory: writing it atomically, its typed documents, finding one, the status.jsonl event log,
and the bounded reader every file of it is read back through."""
