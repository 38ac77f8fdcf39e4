"""Launch mode: the wizard screen, its steps, the pipeline messages, the recipe catalog and the wizard's model."""
