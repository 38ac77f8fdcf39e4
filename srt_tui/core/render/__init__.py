"""The launch script: rendering a JobPlan to bash, shell quoting."""
