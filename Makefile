# One command for lint + types + tests: `make check`.
PY ?= python3

.PHONY: deps check lint format types test test-fast screenshots bench cluster-up cluster-down

check: lint types test

# srt-tui with its test and dev extras, and ai-dynamo for the Dynamo job tests: ai-dynamo without deps, since
# its `aisimulate` requirement is a stub that downloads from outside on Python >= 3.11; the rest is the
# `dynamo` extra
deps:
	$(PY) -m pip install -q --no-deps ai-dynamo==1.6.1 ai-dynamo-runtime==1.6.1
	$(PY) -m pip install -q -e ".[test,dev,dynamo]"

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
