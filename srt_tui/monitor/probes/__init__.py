"""What the monitor asks over the network: HTTP, Prometheus text, selectors, sources with back-off, registrations."""
