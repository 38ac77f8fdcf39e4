"""`srt-tui wait` on a job a worker failed ends with that worker's log line that says why, as `srt-tui status` and
the job view's Problems panel show it (it said only `worker agg_0 exited with code 2; log: …`, and the operator
opened the log to learn the engine refused a flag). A real local job: the mocker given a flag it does not take."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.jobtools import apply, srt

RECIPE = (
    "name: bad-flag\nmodel: {path: mock-model}\nengine: mocker\n"
    "roles:\n  agg: {nodes: 1, workers: 1, args: {bogus-flag: 1}}\nfrontend: {type: none}\n"
)
REFUSED = "error: unrecognized arguments: --bogus-flag 1"


def test_wait_ends_with_the_failing_workers_error_line(tmp_path: Path) -> None:
    recipe = tmp_path / "bad-flag.yaml"
    recipe.write_text(RECIPE)
    job_id, job_dir = apply(str(recipe), "--launcher", "local", "-p", "local")
    proc = srt("wait", job_id, "--for", "done", "--timeout", "60", "-q", check=False, timeout=90)
    assert proc.returncode == 1, proc.stderr
    said = proc.stderr.splitlines()
    log = job_dir / "logs" / "agg_0.log"
    assert f"{job_id} ended (failed): worker agg_0 exited with code 2; log: {log}" in said[-2:], proc.stderr
    why = said[-1]
    assert why.startswith("  ") and why.endswith(REFUSED), proc.stderr
    status = srt("status", job_id, check=False).stdout
    assert f"{job_id}: {why}" in status.splitlines(), status  # the same line `status` prints
