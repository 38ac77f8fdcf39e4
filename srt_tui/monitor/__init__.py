"""srt_tui.monitor: async observation of running jobs, without Textual.

`collect.Monitor.refresh(jobs)` → one immutable `model.JobSnapshot` per job, from one batched Slurm
query, the job directories, HTTP probes (lean client in `http`), Prometheus metrics (`prom`), router
registrations (`routers`), each GPU's load from the job's GPU exporters (`gpu_status`), and what
the job relays when its nodes cannot be reached (`relay`).
`cells` renders snapshot fields as plain text for `srt-tui status` and the TUI alike.
"""
