"""Monitor mode: the screen, the snapshot feed, the jobs view, the job view, their dialogs and styles."""
