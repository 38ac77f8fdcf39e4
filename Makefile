# One command for lint + types + tests: `make check`.
PY ?= python3

.PHONY: deps lock aiperf-venv check lint format types test test-fast screenshots bench cluster-up cluster-down

check: lint types test

# srt-tui with its test and dev extras at the versions in constraints.txt (scripts/lock.py writes it from a
# tested environment), and ai-dynamo for the Dynamo job tests: ai-dynamo without deps, since its `aisimulate`
# requirement is a stub that downloads from outside on Python >= 3.11; the rest is the `dynamo` extra
deps:
	$(PY) -m pip install -q --no-deps ai-dynamo==1.6.1 ai-dynamo-runtime==1.6.1
	$(PY) -m pip install -q -c constraints.txt -e ".[test,dev,dynamo]"
	$(PY) -m pip install -q --force-reinstall --no-deps smg==1.13.0  # its `smg` script, not sglang-router's

# re-pin constraints.txt from this environment after changing a requirement
lock:
	$(PY) scripts/lock.py

# aiperf (srtctl's mooncake-router / trace-replay client) in a virtualenv of its own, for the benchmark-type
# job tests: in the main environment its requirements would downgrade textual. The tests find it here
# (or at $SRT_AIPERF_VENV) and put only its `aiperf` on the jobs' PATH.
AIPERF_VENV ?= .venv-aiperf
aiperf-venv:
	test -x $(AIPERF_VENV)/bin/aiperf || { $(PY) -m venv $(AIPERF_VENV) && $(AIPERF_VENV)/bin/pip install -q aiperf==0.13.0; }

lint:
	ruff check srt_tui tests benchmarks scripts tools
	ruff format --check srt_tui tests benchmarks scripts tools

format:
	ruff format srt_tui tests benchmarks scripts tools
	ruff check --fix srt_tui tests benchmarks scripts tools

types:
	mypy

# three pytest-xdist workers: the tests that share the one local Slurm cluster run one after another on one
# of them (tests/conftest.py groups them), the rest spread over all three; PAR= runs in one process
PAR ?= -n 3 --dist loadgroup

# the suite's job tests run aiperf from its virtualenv: built on first need (once)
test: aiperf-venv
	$(PY) -m pytest -q $(PAR)

# the unit level: no App, no process of its own, no Slurm (tests/conftest.py gives each test its level)
test-fast:
	$(PY) -m pytest -q $(PAR) -m unit

# by level: unit, cli, live, tui, slurm
test-%:
	$(PY) -m pytest -q $(PAR) -m $*

screenshots:
	$(PY) scripts/screenshots.py

# the ratio benchmarks (figure beside a floor measured in the same run) end with one table
bench:
	$(PY) benchmarks/dry_run.py
	$(PY) benchmarks/monitor_refresh.py
	$(PY) benchmarks/table.py

cluster-up:
	bash scripts/local-slurm/start.sh

cluster-down:
	bash scripts/local-slurm/stop.sh
