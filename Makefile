# One command for lint + types + tests: `make check`.
PY ?= python3

.PHONY: check lint format types test test-fast screenshots bench cluster-up cluster-down

check: lint types test

lint:
	ruff check srt_tui tests benchmarks scripts
	ruff format --check srt_tui tests benchmarks scripts

format:
	ruff format srt_tui tests benchmarks scripts
	ruff check --fix srt_tui tests benchmarks scripts

types:
	mypy

test:
	$(PY) -m pytest -q

test-fast:
	$(PY) -m pytest -q -m "not slurm"

screenshots:
	$(PY) scripts/screenshots.py

bench:
	$(PY) benchmarks/dry_run.py
	$(PY) benchmarks/tui_startup.py
	$(PY) benchmarks/monitor_refresh.py

cluster-up:
	bash scripts/local-slurm/start.sh

cluster-down:
	bash scripts/local-slurm/stop.sh
