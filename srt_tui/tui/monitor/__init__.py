"""Monitor mode's parts: the snapshot feed, the jobs view, the job view and their dialogs."""
