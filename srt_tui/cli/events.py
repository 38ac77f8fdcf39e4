"""`srt-tui events JOB…`: a job's story, oldest first: its submission, every stage its launch script wrote and its
cancel by srt-tui (the Monitor's `e` shows the same, with the worker health changes it saw). Files only: no Slurm
query."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any

from srt_tui.cli.args import path_arg
from srt_tui.cli.printable import printable

#: the footer under each job's events: the job directory holds its stages, not its workers' health changes, which
#: only a Monitor watching the job records (in memory: the 2026-12-07 pass read 9 events here and 17 under the
#: Monitor's `e`, with no word of why)
HEALTH_NOTE = (
    "{count} from the job directory. Worker health changes are not in it: a Monitor records them\n"
    "while it watches the job, and its `e` lists them with these."
)


def _cmd_events(args: argparse.Namespace) -> int:
    from srt_tui.cli.jobs import known_refs
    from srt_tui.cli.printable import say_unknown
    from srt_tui.core.jobdir.contract import JobDirError, read_job_meta
    from srt_tui.core.text.counts import counted
    from srt_tui.core.text.views import fixed_table
    from srt_tui.monitor.timeline import offset, read_story, started, timeline

    docs: list[dict[str, Any]] = []
    jobs, unknown = known_refs(args.jobs, args.output)  # the known JOBs' events; an error line for each other
    for n, (job_id, job_dir) in enumerate(jobs.items()):
        try:
            name = read_job_meta(job_dir).name
        except JobDirError:  # listed in the index, its job.json gone since: its events are still worth reading
            name = ""
        story = read_story(job_dir)
        entries = timeline(story.events, cancel=story.cancel, check_every_s=story.check_every_s)
        if args.json:
            docs.append({"job_id": job_id, "job_dir": str(job_dir), "events": [e.json() for e in entries]})
            continue
        start = started(entries)
        print(("\n" if n else "") + printable(f"{job_id} {name}  {job_dir}"))
        if not entries:
            print("  no events yet (the job has not started its launch script)")
            continue
        rows: list[tuple[str, ...]] = [
            (_clock(e.at), offset(e, start), e.who, e.what, printable(e.detail)) for e in entries
        ]
        print(fixed_table(("TIME", "SINCE", "WHO", "WHAT", "DETAIL"), rows))
        print(HEALTH_NOTE.format(count=counted(len(entries), "event")))
    if args.json:
        print(json.dumps(docs, indent=2))
    return say_unknown(unknown)


def _clock(at: datetime | None) -> str:
    """`2026-12-07 01:52:10` in local time, '-' when unknown."""
    return at.astimezone().strftime("%Y-%m-%d %H:%M:%S") if at is not None else "-"


def add_events_command(sub: Any) -> None:
    """Register `events` on the CLI parser."""
    e = sub.add_parser(
        "events",
        help="a job's story: its submission, every stage of its launch script and its cancel, oldest first",
        description="Print each job's events from its job directory (job.json, status.jsonl, cancel.json): when, "
        "how long after the submission, and what. No Slurm query; the Monitor's `e` adds the worker health "
        "changes it saw.",
    )
    e.add_argument("jobs", nargs="+", metavar="JOB", help="job id, directory or sweep group id")
    e.add_argument("-o", "--output", type=path_arg, help="output directory holding job directories")
    e.add_argument("--json", action="store_true", help="a JSON list: per job, its events (at, who, what, detail)")
    e.set_defaults(func=_cmd_events)
