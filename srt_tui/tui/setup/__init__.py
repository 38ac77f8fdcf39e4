"""Setup mode's parts: messages from the probe worker and the text it shows."""
