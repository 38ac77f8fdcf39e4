"""Load generators, standard library only. `sa_bench.py` is srtctl's sa-bench client, shipped whole into a
job directory and run there; `load.py` (with `client.py`, `stats.py`, `wire.py`) is the in-process closed-loop
load behind `srt-tui bench`, the job view's smoke test and `python -m srt_tui.mock bench`. They stay two:
the shipped client must be one self-contained file, and reads srtctl's arguments and writes its result files."""
