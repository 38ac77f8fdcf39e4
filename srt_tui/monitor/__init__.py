"""srt_tui.monitor: async observation of running jobs, without Textual.

`snapshot.collect.Monitor.refresh(jobs)` → one immutable `model.JobSnapshot` per job, from one batched
Slurm query, the job directories (`files/`), HTTP probes (`probes/`: the lean client, Prometheus text,
router registrations) and the statuses built from them (`statuses/`: workers, router, each GPU's load,
stage, what the job relays when its nodes cannot be reached). `cells` renders snapshot fields as plain
text for `srt-tui status` and the TUI alike; `alljobs/` lists every Slurm job of the user; `feeds/` is how the
TUI gets its snapshots (the collector in a child process, so a refresh never holds the TUI's event loop).
"""
