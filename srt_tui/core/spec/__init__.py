"""The job as the operator wrote it: recipe and profile models, schema 1, overrides, sweeps, YAML reading."""
