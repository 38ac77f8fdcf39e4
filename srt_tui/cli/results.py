"""`srt-tui results`: what jobs measured, side by side (one row per job and concurrency), as text, JSON or CSV."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from srt_tui.cli.args import path_arg
from srt_tui.core.errors import Problem, SrtError

if TYPE_CHECKING:
    from srt_tui.core.jobdir.contract import SweptValue


def resolve_refs(refs: list[str], output: str | None, unknown: list[SrtError] | None = None) -> list[Path]:
    """The job directories of the JOBs, in order: a directory (srt-tui's or srtctl's), a job id, a sweep's group id.
    A JOB that is none of them raises SrtError, or with ``unknown`` is added to it and the others still read."""
    out: list[Path] = []
    for ref in refs:
        try:
            out += _ref_dirs(ref, output)
        except SrtError as exc:
            if unknown is None:
                raise
            unknown.append(exc)
    return out


def _ref_dirs(ref: str, output: str | None) -> list[Path]:
    """The job directories of one JOB (a sweep's group: its members'); SrtError when it is none of them."""
    from srt_tui.core.owned import valid_job_id
    from srt_tui.state.jobindex import find_job_dir, group_members

    path = find_job_dir(ref, Path(output) if output else None)
    inside = [Path(output) / ref] if output and valid_job_id(ref) else []  # never `-o X ../elsewhere`
    for candidate in (Path(ref).expanduser(), *inside):
        if path is None and candidate.is_dir():
            path = candidate.resolve()  # srtctl's job directory (outputs/<job id>) has no job.json
    if path is not None:
        return [path]
    members = group_members(ref)
    if not members:
        raise SrtError(
            [
                Problem(
                    field="JOB",
                    message=f"`{ref}` is no job directory, known job id or sweep group",
                    hint="pass a job id, its directory (srt-tui's or srtctl's), a group id printed by "
                    "`apply` of a sweep, or -o OUTPUT_DIR where the job lives",
                )
            ]
        )
    return list(members.values())


def _cmd_results(args: argparse.Namespace) -> int:
    from srt_tui.core.results.read import job_identity, no_results_reason, read_results
    from srt_tui.core.results.swept import by_swept
    from srt_tui.core.results.table import LabelledResults, Swept, table_header, table_rows, to_csv, to_json
    from srt_tui.core.text.views import fixed_table

    found: list[Swept] = []
    missing: list[str] = []
    unknown: list[SrtError] = []  # the known JOBs' results are printed all the same; an error line for each other
    for path in resolve_refs(args.jobs, args.output, unknown):
        results = read_results(path)
        job_id, name = job_identity(path)
        if not results.runs:
            missing.append(f"srt-tui: error: {job_id}: {no_results_reason(job_id, path)}")
            continue
        found.append((LabelledResults(job_id, name, results), _swept_values(path)))
    params, found = by_swept(found)  # a sweep's members: a column per parameter it varies (OSL), rows by it
    if found:
        if args.json:
            sys.stdout.write(to_json(found, params))
        elif args.csv:
            sys.stdout.write(to_csv(found, params))
        else:
            print(fixed_table(table_header(params), table_rows(found, params)))
            print("latencies in ms; OUT/USER = 1000 / median TPOT (srtctl's definition)")
    sys.stdout.flush()  # a closed pipe is reported here (exit 0), before the missing jobs' lines
    for line in missing:
        print(line, file=sys.stderr)
    from srt_tui.cli.printable import say_unknown

    return say_unknown(unknown) or (1 if missing else 0)


def _swept_values(path: Path) -> Mapping[str, SweptValue]:
    """The values a sweep filled this job with (job.json's `group_values`); none for a job outside a sweep, srtctl's
    job directory, or a job.json that cannot be read (its results are still shown)."""
    from srt_tui.core.jobdir.contract import JOB_FILE, JobDirError, read_job_meta

    if not (path / JOB_FILE).is_file():
        return {}
    try:
        return read_job_meta(path).group_values or {}
    except JobDirError:
        return {}


def add_results_command(sub: Any) -> None:
    """Register `results` on the CLI parser."""
    r = sub.add_parser(
        "results",
        help="benchmark results of jobs side by side: one row per job and concurrency",
        description="Read each job's sa-bench results (srt-tui's or srtctl's layout) and print one row per job "
        "and concurrency; a sweep's rows show what it varies, a column per parameter (OSL), ordered by it. "
        "Exit 1 (one line per job on stderr) when a job has no results yet; 2 when a JOB names no "
        "job (the others are printed all the same).",
    )
    r.add_argument("jobs", nargs="+", metavar="JOB", help="job id, job directory, or a sweep's group id")
    r.add_argument("-o", "--output", type=path_arg, help="output directory holding job directories")
    fmt = r.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="a JSON list of rows (latencies in ms; a sweep's: `swept`)")
    fmt.add_argument("--csv", action="store_true", help="CSV with a header line")
    r.set_defaults(func=_cmd_results)
