"""Setup mode: the screen, the messages of its probe worker, the text it shows and its styles."""
