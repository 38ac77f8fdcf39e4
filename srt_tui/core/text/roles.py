"""Short role letters used in grids and tables (`P0`, `D1`, `A0`); dependency-free so any face can import it."""

ROLE_LETTER = {"prefill": "P", "decode": "D", "agg": "A", "router": "R", "infra": "I", "benchmark": "B"}
