"""From specification to launch plan: resolve once, topology, validation, and the plan builder and model."""
