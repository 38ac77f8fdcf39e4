"""Pure parsers for Slurm's command output (22.05 and 23.02+ shapes); no I/O, no subprocess."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from srt_tui.slurm.client import TERMINAL_STATES, JobState, NodeInfo, PartitionInfo

#: Base job states; 23.02+ report ``job_state`` as a list of a base state plus flags.
BASE_JOB_STATES: frozenset[str] = frozenset(
    {
        "PENDING",
        "RUNNING",
        "SUSPENDED",
        "COMPLETED",
        "CANCELLED",
        "FAILED",
        "TIMEOUT",
        "NODE_FAIL",
        "PREEMPTED",
        "BOOT_FAIL",
        "DEADLINE",
        "OUT_OF_MEMORY",
    }
)
#: squeue ``-o`` format of the text fallback; name second, work dir last (both may hold "|").
SQUEUE_TEXT_FORMAT = "%i|%j|%T|%r|%N|%D|%P|%S|%e|%l|%V|%Z"
#: sacct ``-n -P -X -o`` fields of a finished job (Slurm accounting, where slurmdbd runs).
SACCT_FIELDS = "JobID,JobName,State,ExitCode,Reason,NodeList,NNodes,Partition,Submit,Start,End,Timelimit,WorkDir"
#: sinfo ``-N -o`` format of the node text fallback.
SINFO_NODES_FORMAT = "%N|%T|%c|%m|%G|%P|%o"

_NONE_WORDS = frozenset({"", "N/A", "NONE", "None", "(null)", "Unknown", "UNKNOWN", "n/a"})
_UNLIMITED_WORDS = frozenset({"UNLIMITED", "INFINITE", "Partition_Limit"})


# ----------------------------------------------------------------------------- hostlists


def _split_top_level(text: str, sep: str = ",", opening: str = "[", closing: str = "]") -> list[str]:
    """Split on ``sep`` outside brackets (``a[1,2],b`` -> ``a[1,2]``, ``b``)."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced '{closing}' in {text!r}")
        if char == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if depth != 0:
        raise ValueError(f"unbalanced '{opening}' in {text!r}")
    parts.append("".join(current))
    return parts


def _expand_range_set(body: str, expr: str) -> list[str]:
    """Expand the inside of one bracket group: ``1-3,05`` -> 1 2 3 05 (zero padding kept)."""
    out: list[str] = []
    for item in body.split(","):
        item = item.strip()
        if not item:
            raise ValueError(f"empty range in hostlist {expr!r}")
        low, sep, high = item.partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise ValueError(f"bad range {item!r} in hostlist {expr!r}")
        if not sep:
            out.append(low)
            continue
        start, stop = int(low), int(high)
        if stop < start:
            raise ValueError(f"descending range {item!r} in hostlist {expr!r}")
        width = len(low)
        out.extend(str(n).zfill(width) for n in range(start, stop + 1))
    return out


def expand_hostlist(expr: str) -> list[str]:
    """Expand a hostlist (``node[1-3,5]``, ``a[01-02]b``, ``r[1-2]n[1-2]``, ``x,y``) as scontrol show hostnames."""
    expr = expr.strip()
    if expr in _NONE_WORDS:
        return []
    names: list[str] = []
    for item in _split_top_level(expr):
        item = item.strip()
        if not item:
            continue
        # literal text and bracket groups, alternating: "a[1-2]b[3]" -> a, 1-2, b, 3, ""
        pieces = re.split(r"\[([^\[\]]*)\]", item)
        if "[" in "".join(pieces[::2]) or "]" in "".join(pieces[::2]):
            raise ValueError(f"nested or unbalanced brackets in hostlist {expr!r}")
        expanded = [pieces[0]]
        for index in range(1, len(pieces), 2):
            values = _expand_range_set(pieces[index], expr)
            suffix = pieces[index + 1]
            expanded = [f"{head}{value}{suffix}" for head in expanded for value in values]
        names.extend(expanded)
    return names


def compress_hostlist(names: Iterable[str]) -> str:
    """Compress node names into a Slurm hostlist (``node1 node2 node3`` -> ``node[1-3]``)."""
    groups: dict[tuple[str, int], list[int]] = {}
    order: list[tuple[str, int] | str] = []
    for name in names:
        match = re.fullmatch(r"(.*?)(\d+)", name)
        if not match:
            order.append(name)
            continue
        key = (match.group(1), len(match.group(2)) if match.group(2).startswith("0") else 0)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(match.group(2)))
    out: list[str] = []
    for entry in order:
        if isinstance(entry, str):
            out.append(entry)
            continue
        prefix, width = entry
        numbers = sorted(set(groups[entry]))
        ranges: list[str] = []
        start = prev = numbers[0]
        for number in [*numbers[1:], None]:
            if number is not None and number == prev + 1:
                prev = number
                continue
            low, high = str(start).zfill(width), str(prev).zfill(width)
            ranges.append(low if start == prev else f"{low}-{high}")
            if number is not None:
                start = prev = number
        out.append(f"{prefix}{ranges[0]}" if len(numbers) == 1 else f"{prefix}[{','.join(ranges)}]")
    return ",".join(out)


# ----------------------------------------------------------------------------- scalar values


def parse_gres(gres: str) -> tuple[int, str | None]:
    """GPU count and type of a GRES string (``gpu:8``, ``gpu:h100:8(S:0-1)``); several entries are summed."""
    count = 0
    types: list[str] = []
    if gres.strip() in _NONE_WORDS:
        return 0, None
    for entry in _split_top_level(gres, ",", "(", ")"):
        entry = re.sub(r"\(.*\)$", "", entry.strip())
        parts = entry.split(":")
        if parts and parts[0] == "gres":
            parts = parts[1:]
        if not parts or parts[0] != "gpu":
            continue
        gpu_type: str | None = None
        number = "1"
        if len(parts) == 2:
            if re.match(r"\d", parts[1]):
                number = parts[1]
            else:
                gpu_type = parts[1]
        elif len(parts) >= 3:
            gpu_type, number = parts[1], parts[2]
        digits = re.match(r"\d+", number)
        count += int(digits.group(0)) if digits else 1
        if gpu_type and gpu_type not in types:
            types.append(gpu_type)
    return count, (",".join(types) if types else None)


def decode_wait_status(raw: int) -> tuple[int, int | None]:
    """Exit code and signal of a raw wait status as Slurm 22.05 JSON gives it (768 -> 3, 15 -> signal 15).

    As scontrol prints it: a signalled status has exit code 0 (4021 is ``0:53``, not 15 and 53).
    """
    signal = raw & 0x7F
    if signal and signal != 0x7F:
        return 0, signal
    return (raw >> 8) & 0xFF, None


def parse_exit_pair(text: str) -> tuple[int | None, int | None]:
    """Exit code and signal of scontrol's ``ExitCode=3:0`` value (``0:15`` -> 0, signal 15)."""
    code, _, signal = text.strip().partition(":")
    if not code.isdigit():
        return None, None
    return int(code), (int(signal) if signal.isdigit() and int(signal) else None)


def parse_time_limit(text: str) -> int | None:
    """Minutes of a Slurm time string (``5:00``, ``1:00:00``, ``1-00:00:00``, ``30``); unlimited -> None."""
    text = text.strip()
    if text in _NONE_WORDS or text in _UNLIMITED_WORDS or text == "INVALID":
        return None
    days = 0
    if "-" in text:
        day_text, text = text.split("-", 1)
        if not day_text.isdigit():
            return None
        days = int(day_text)
        fields = [int(f) for f in text.split(":") if f.isdigit()]
        hours, minutes, seconds = (fields + [0, 0, 0])[:3]
    else:
        numbers = text.split(":")
        if not all(n.isdigit() for n in numbers):
            return None
        fields = [int(n) for n in numbers]
        if len(fields) == 1:
            hours, minutes, seconds = 0, fields[0], 0
        elif len(fields) == 2:
            hours, (minutes, seconds) = 0, fields
        else:
            hours, minutes, seconds = fields[:3]
    return days * 1440 + hours * 60 + minutes + math.ceil(seconds / 60)


def parse_timestamp(text: str) -> int | None:
    """Epoch seconds of a Slurm local time (``2024-05-01T10:00:00``); ``N/A``/``Unknown`` -> None."""
    text = text.strip()
    if text in _NONE_WORDS:
        return None
    try:
        return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp())
    except ValueError:
        return None


def json_number(value: object) -> int | None:
    """An integer from 22.05 (plain int) or 23.02+ (``{"set": .., "infinite": .., "number": ..}``)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, Mapping):
        if not value.get("set", True) or value.get("infinite", False):
            return None
        return json_number(value.get("number"))
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _epoch(value: object) -> int | None:
    """A JSON time, with 0 (Slurm's "not set") as None."""
    number = json_number(value)
    return number if number else None


def _text(value: object) -> str:
    """A JSON string field as text; None/"(null)" -> ""."""
    if value is None:
        return ""
    text = str(value)
    return "" if text == "(null)" else text


def clean_reason(text: str) -> str:
    """Slurm's pending/failure reason; "None" -> ""."""
    return "" if text.strip() in _NONE_WORDS else text.strip()


def base_state(value: object) -> str:
    """The job's base state from a 22.05 string or a 23.02+ list of state + flags."""
    if isinstance(value, (list, tuple)):
        states = [str(v).upper() for v in value]
        for state in states:
            if state in BASE_JOB_STATES:
                return state
        return states[0] if states else "UNKNOWN"
    text = str(value or "").strip().upper()
    # scontrol may say "CANCELLED by 0"; squeue flags can follow a "+"
    text = re.split(r"[\s+]", text, maxsplit=1)[0] if text else text
    return text or "UNKNOWN"


def clean_times(state: str, start: int | None, end: int | None) -> tuple[int | None, int | None, int | None]:
    """Start, end and expected start from Slurm's: no start before the job runs, no end before it ends; a
    pending job's start time is the scheduler's estimate of when it will start (`squeue --start`), if it made one."""
    expected = start if state == "PENDING" and start else None
    if state == "PENDING":
        start = None
    if state not in TERMINAL_STATES:
        end = None
    return start, end, expected


# ----------------------------------------------------------------------------- sbatch / ping


def parse_sbatch_parsable(stdout: str) -> str:
    """The job id from ``sbatch --parsable`` output (``29`` or ``29;cluster``)."""
    lines = [line.strip() for line in stdout.strip().splitlines() if line.strip()]
    if not lines:
        raise ValueError("sbatch --parsable printed nothing")
    job_id = lines[-1].split(";", 1)[0].strip()
    if not re.fullmatch(r"\d+(_\d+)?", job_id):
        raise ValueError(f"unexpected sbatch --parsable output: {stdout.strip()!r}")
    return job_id


def parse_scontrol_ping(stdout: str) -> bool:
    """True if ``scontrol ping`` says the primary controller is UP."""
    return bool(re.search(r"\bis UP\b", stdout))


# ----------------------------------------------------------------------------- scontrol Key=Value


def parse_scontrol_config(stdout: str) -> dict[str, str]:
    """``scontrol show config`` as ``{key: value}`` (its ``Key = Value`` lines)."""
    out: dict[str, str] = {}
    for line in stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and " " not in key.strip():
            out[key.strip()] = value.strip()
    return out


_KEY_START = re.compile(r"(?:^|(?<=\s))([A-Z][A-Za-z0-9_/:.]*)=")


def parse_kv_line(line: str) -> dict[str, str]:
    """``Key=Value`` pairs of one ``scontrol show ... -o`` line; values keep their spaces and "=" signs."""
    # a key starts with an upper-case letter after whitespace: ``Command=/p/run.sh --x=1`` stays whole
    matches = list(_KEY_START.finditer(line))
    out: dict[str, str] = {}
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(line)
        out[match.group(1)] = line[match.end() : end].strip()
    return out


def job_from_scontrol(fields: Mapping[str, str]) -> JobState:
    """A JobState from the fields of one ``scontrol show job -o`` line."""
    state = base_state(fields.get("JobState", ""))
    code, signal = parse_exit_pair(fields.get("ExitCode", ""))
    if state not in TERMINAL_STATES:
        code, signal = None, None
    count_text = re.match(r"\d+", fields.get("NumNodes", ""))
    start, end, expected = clean_times(
        state, parse_timestamp(fields.get("StartTime", "")), parse_timestamp(fields.get("EndTime", ""))
    )
    return JobState(
        job_id=fields.get("JobId", ""),
        name=fields.get("JobName", ""),
        state=state,
        reason=clean_reason(fields.get("Reason", "")),
        nodes=tuple(expand_hostlist(fields.get("NodeList", ""))),
        node_count=int(count_text.group(0)) if count_text else 0,
        exit_code=code,
        exit_signal=signal,
        submit_time=parse_timestamp(fields.get("SubmitTime", "")),
        start_time=start,
        expected_start=expected,
        end_time=end,
        time_limit=parse_time_limit(fields.get("TimeLimit", "")),
        partition=clean_reason(fields.get("Partition", "")),
        work_dir=clean_reason(fields.get("WorkDir", "")),
    )


def parse_scontrol_show_jobs(stdout: str) -> dict[str, JobState]:
    """Jobs by id from ``scontrol show job -o [ID]`` (one line per job)."""
    jobs: dict[str, JobState] = {}
    for line in stdout.splitlines():
        if "JobId=" not in line:
            continue
        job = job_from_scontrol(parse_kv_line(line))
        if job.job_id:
            jobs[job.job_id] = job
    return jobs


def parse_scontrol_show_partitions(stdout: str) -> list[PartitionInfo]:
    """Partitions from ``scontrol show partition -o``."""
    out: list[PartitionInfo] = []
    for line in stdout.splitlines():
        if "PartitionName=" not in line:
            continue
        fields = parse_kv_line(line)
        out.append(
            PartitionInfo(
                name=fields.get("PartitionName", ""),
                state=fields.get("State", "").upper(),
                nodes=tuple(expand_hostlist(fields.get("Nodes", ""))),
                total_nodes=json_number(fields.get("TotalNodes")) or 0,
                total_cpus=json_number(fields.get("TotalCPUs")) or 0,
                is_default=fields.get("Default", "").upper() == "YES",
                max_time=parse_time_limit(fields.get("MaxTime", "")),
            )
        )
    return out


def _node(
    name: str,
    state: str,
    cpus: int | None,
    memory: int | None,
    gres: str,
    partitions: Iterable[str],
    address: str,
) -> NodeInfo:
    """A NodeInfo with the GPU count and type derived from the GRES string."""
    gres = "" if gres.strip() in _NONE_WORDS else gres.strip()
    gpus, gpu_type = parse_gres(gres)
    return NodeInfo(
        name=name,
        state=state.upper(),
        cpus=cpus or 0,
        memory_mb=memory or 0,
        gres=gres,
        gpus=gpus,
        gpu_type=gpu_type,
        partitions=tuple(p for p in partitions if p),
        address="" if address in _NONE_WORDS else address,
    )


def parse_scontrol_show_nodes(stdout: str) -> list[NodeInfo]:
    """Nodes from ``scontrol show node -o``."""
    out: list[NodeInfo] = []
    for line in stdout.splitlines():
        if "NodeName=" not in line:
            continue
        fields = parse_kv_line(line)
        out.append(
            _node(
                fields.get("NodeName", ""),
                fields.get("State", ""),
                json_number(fields.get("CPUTot")),
                json_number(fields.get("RealMemory")),
                fields.get("Gres", ""),
                fields.get("Partitions", "").split(","),
                fields.get("NodeAddr", ""),
            )
        )
    return out


# ----------------------------------------------------------------------------- squeue


def _load_json(data: str | Mapping[str, Any]) -> Mapping[str, Any]:
    """Decode JSON text (or pass a decoded object through), insisting on an object."""
    decoded: object = json.loads(data) if isinstance(data, str) else data
    if not isinstance(decoded, Mapping):
        raise ValueError("expected a JSON object")
    return decoded


def _exit_from_json(value: object) -> tuple[int | None, int | None]:
    """Exit code and signal from 22.05's raw wait status or 23.02+'s exit_code object."""
    if isinstance(value, Mapping):
        status = value.get("status")
        items = status if isinstance(status, (list, tuple)) else [status]
        statuses = {str(s).upper() for s in items if s is not None}
        if statuses & {"PENDING", "INVALID"}:
            return None, None
        code = json_number(value.get("return_code"))
        signal_obj = value.get("signal")
        signal: int | None = None
        if isinstance(signal_obj, Mapping):
            signal = json_number(signal_obj.get("id", signal_obj.get("signal_id")))
        if signal and code is None:  # 24.x+: a signalled job's return_code is unset; scontrol says 0:SIG
            code = 0
        return code, (signal or None)
    raw = json_number(value)
    if raw is None:
        return None, None
    return decode_wait_status(raw)


def job_from_json(job: Mapping[str, Any]) -> JobState:
    """A JobState from one entry of ``squeue --json``'s ``jobs`` (22.05 or 23.02+ shape)."""
    state = base_state(job.get("job_state"))
    code, signal = _exit_from_json(job.get("exit_code"))
    if state not in TERMINAL_STATES:
        code, signal = None, None
    start, end, expected = clean_times(state, _epoch(job.get("start_time")), _epoch(job.get("end_time")))
    nodes = _text(job.get("nodes"))
    return JobState(
        job_id=str(json_number(job.get("job_id")) or ""),
        name=_text(job.get("name")),
        state=state,
        reason=clean_reason(_text(job.get("state_reason"))),
        nodes=tuple(expand_hostlist(nodes)),
        node_count=json_number(job.get("node_count")) or 0,
        exit_code=code,
        exit_signal=signal,
        submit_time=_epoch(job.get("submit_time")),
        start_time=start,
        expected_start=expected,
        end_time=end,
        time_limit=json_number(job.get("time_limit")),
        partition=_text(job.get("partition")),
        work_dir=_text(job.get("current_working_directory")),
    )


def parse_squeue_json(data: str | Mapping[str, Any]) -> dict[str, JobState]:
    """Jobs by id from ``squeue --json`` (all jobs; 22.05 ignores -j, so filter by id afterwards)."""
    doc = _load_json(data)
    jobs: dict[str, JobState] = {}
    for entry in doc.get("jobs") or []:
        if not isinstance(entry, Mapping):
            continue
        job = job_from_json(entry)
        if not job.job_id:
            continue
        jobs[job.job_id] = job
        array_job, array_task = json_number(entry.get("array_job_id")), json_number(entry.get("array_task_id"))
        if array_job and array_task is not None:
            jobs.setdefault(f"{array_job}_{array_task}", job)
    return jobs


def _split_named(line: str, width: int) -> list[str] | None:
    """The ``width`` "|"-separated fields of a squeue/sacct line whose second field is the job name, which
    may itself contain "|" (the surplus fields are its own); None for a blank or short line."""
    parts = line.split("|")
    extra = len(parts) - width
    if not line.strip() or extra < 0:
        return None
    return [parts[0], "|".join(parts[1 : 2 + extra]), *parts[2 + extra :]]


def parse_squeue_text(stdout: str, fmt: str = SQUEUE_TEXT_FORMAT) -> dict[str, JobState]:
    """Jobs by id from ``squeue -h --states=all -o FORMAT`` (the 10- or 12-field "|" formats)."""
    width = len(fmt.split("|"))
    jobs: dict[str, JobState] = {}
    for line in stdout.splitlines():
        parts = _split_named(line, width)
        if parts is None:
            continue
        job_id, name, state_text, reason, nodes, count, partition, start, end, limit = parts[:10]
        submit, work_dir = (parts[10], parts[11]) if width >= 12 else ("", "")
        state = base_state(state_text)
        start_time, end_time, expected = clean_times(state, parse_timestamp(start), parse_timestamp(end))
        jobs[job_id.strip()] = JobState(
            job_id=job_id.strip(),
            name=name,
            state=state,
            reason=clean_reason(reason),
            nodes=tuple(expand_hostlist(nodes)),
            node_count=json_number(count.strip()) or 0,
            submit_time=parse_timestamp(submit),
            start_time=start_time,
            expected_start=expected,
            end_time=end_time,
            time_limit=parse_time_limit(limit),
            partition=partition.strip(),
            work_dir=work_dir,
        )
    return jobs


def parse_sacct(stdout: str) -> dict[str, JobState]:
    """Jobs by id from ``sacct -n -P -X -o SACCT_FIELDS`` (allocations only; the latest record of a reused id)."""
    width = len(SACCT_FIELDS.split(","))
    jobs: dict[str, JobState] = {}
    for line in stdout.splitlines():
        parts = _split_named(line, width)
        if parts is None:
            continue
        job_id, name, state_text, exit_pair, reason, nodes, count, partition, submit, start, end, limit, work = parts
        state = base_state(state_text)
        code, signal = parse_exit_pair(exit_pair) if state in TERMINAL_STATES else (None, None)
        start_time, end_time, expected = clean_times(state, parse_timestamp(start), parse_timestamp(end))
        jobs[job_id.strip()] = JobState(
            job_id=job_id.strip(),
            name=name,
            state=state,
            reason=clean_reason(reason),
            nodes=tuple(expand_hostlist("" if nodes.strip().startswith("None") else nodes)),  # "None assigned"
            node_count=json_number(count.strip()) or 0,
            exit_code=code,
            exit_signal=signal,
            submit_time=parse_timestamp(submit),
            start_time=start_time,
            expected_start=expected,
            end_time=end_time,
            time_limit=parse_time_limit(limit),
            partition=partition.strip(),
            work_dir=work,
        )
    return jobs


# ----------------------------------------------------------------------------- sinfo


def _node_state_json(node: Mapping[str, Any]) -> str:
    """22.05: ``state`` "mixed" + ``state_flags`` ["DRAIN"]; 23.02+: ``state`` ["MIXED", "DRAIN"]."""
    state = node.get("state")
    words = [str(s) for s in state] if isinstance(state, (list, tuple)) else [str(state or "")]
    flags = node.get("state_flags")
    if isinstance(flags, (list, tuple)):
        words.extend(str(f) for f in flags)
    return "+".join(w.upper() for w in words if w)


def _sinfo_groups(groups: list[Any]) -> list[NodeInfo]:
    """Nodes from 23.11+'s grouped ``sinfo`` list (one entry per partition and node state), merged by name."""
    merged: dict[str, NodeInfo] = {}
    for group in groups:
        if not isinstance(group, Mapping):
            continue
        names = (group.get("nodes") or {}).get("nodes") or []
        cpus, memory = group.get("cpus") or {}, group.get("memory") or {}
        partition = _text((group.get("partition") or {}).get("name"))
        for name in names:
            node = _node(
                str(name),
                _node_state_json(group.get("node") or {}),
                json_number(cpus.get("maximum")),  # sinfo groups nodes alike: minimum == maximum
                json_number(memory.get("maximum")),
                _text((group.get("gres") or {}).get("total")),
                [partition],
                "",
            )
            if node.name in merged:
                before = merged[node.name]
                node = replace(before, partitions=tuple(dict.fromkeys(before.partitions + node.partitions)))
            merged[node.name] = node
    return list(merged.values())


def parse_sinfo_json(data: str | Mapping[str, Any]) -> list[NodeInfo] | None:
    """Nodes from ``sinfo --json``: 22.05/23.02's per-node ``nodes`` list or 23.11+'s grouped ``sinfo``
    list; None for a shape neither of them."""
    doc = _load_json(data)
    entries = doc.get("nodes")
    if not isinstance(entries, list):
        groups = doc.get("sinfo")
        return _sinfo_groups(groups) if isinstance(groups, list) else None
    out: list[NodeInfo] = []
    for node in entries:
        if not isinstance(node, Mapping):
            continue
        partitions = node.get("partitions")
        out.append(
            _node(
                _text(node.get("name")),
                _node_state_json(node),
                json_number(node.get("cpus")),
                json_number(node.get("real_memory")),
                _text(node.get("gres")),
                [str(p) for p in partitions] if isinstance(partitions, list) else [],
                _text(node.get("address")),
            )
        )
    return out


def parse_sinfo_nodes_text(stdout: str) -> list[NodeInfo]:
    """Nodes from ``sinfo -N -h -o SINFO_NODES_FORMAT``; a node listed per partition is merged."""
    merged: dict[str, NodeInfo] = {}
    for line in stdout.splitlines():
        parts = line.split("|")
        if len(parts) < 7:
            continue
        name, state, cpus, memory, gres, partition, address = (p.strip() for p in parts[:7])
        node = _node(name, state, json_number(cpus), json_number(memory), gres, [partition.rstrip("*")], address)
        if name in merged:
            previous = merged[name]
            node = replace(previous, partitions=tuple(dict.fromkeys(previous.partitions + node.partitions)))
        merged[name] = node
    return list(merged.values())


# ----------------------------------------------------------------------------- one user's jobs

#: separator of ``squeue -O`` fields: a control character no job name, path or reason holds
FIELD_SEP = "\x1f"
#: ``squeue -O`` fields of the all-jobs view, in order (22.05 accepts these names; ``-o`` has no stdout)
USER_JOB_FIELDS: tuple[str, ...] = (
    "JobID",
    "ArrayJobID",
    "ArrayTaskID",
    "Name",
    "UserName",
    "State",
    "Reason",
    "NodeList",
    "NumNodes",
    "Partition",
    "SubmitTime",
    "StartTime",
    "EndTime",
    "TimeLimit",
    "WorkDir",
    "StdOut",
)


def user_jobs_format() -> str:
    """The ``squeue -O`` argument: every field of USER_JOB_FIELDS followed by FIELD_SEP (no padding)."""
    return ",".join(f"{field}:{FIELD_SEP}" for field in USER_JOB_FIELDS)


_PATTERN = re.compile(r"%(\d*)([%AaJjux])")


def expand_output_pattern(path: str, job_id: str, name: str = "", user: str = "") -> str:
    """A job's ``--output`` path with Slurm's filename patterns filled in as sbatch does: ``%j``/``%J``
    (job id), ``%A``/``%a`` (array job and task), ``%u``, ``%x``, ``%%``; a digit sets zero padding.

    squeue prints the pattern unexpanded (``/o/%j/logs/sweep_%j.log``); ``%N`` and the like, which
    depend on the node, stay as they are.
    """
    array_job, _, task = job_id.partition("_")

    def fill(match: re.Match[str]) -> str:
        width, letter = match.group(1), match.group(2)
        if letter == "%":
            return "%"
        value = {"j": array_job, "J": array_job, "A": array_job, "a": task, "u": user, "x": name}[letter]
        return value.zfill(int(width)) if width and value.isdigit() else value

    return _PATTERN.sub(fill, path)


def stdout_path(pattern: str, job_id: str, name: str = "", user: str = "", work_dir: str = "") -> str:
    """A job's stdout file: its ``--output`` pattern expanded, and a relative path (24.x+ give a job
    without ``-o`` its ``slurm-%j.out`` relative) joined with the job's work directory; '' for none."""
    pattern = clean_reason(pattern)
    if not pattern:
        return ""
    path = expand_output_pattern(pattern, job_id, name, user)
    if not path.startswith("/") and work_dir:
        path = work_dir.rstrip("/") + "/" + path
    return path


def parse_user_jobs(stdout: str) -> list[JobState]:
    """Jobs from ``squeue -h -O user_jobs_format()``, in squeue's order (stdout patterns expanded)."""
    width = len(USER_JOB_FIELDS)
    jobs: list[JobState] = []
    for line in stdout.splitlines():
        parts = line.split(FIELD_SEP)
        if len(parts) < width:
            continue
        row = dict(zip(USER_JOB_FIELDS, (p.strip() for p in parts[:width])))
        job_id = row["JobID"]
        if not job_id:
            continue
        state = base_state(row["State"])
        start, end, expected = clean_times(state, parse_timestamp(row["StartTime"]), parse_timestamp(row["EndTime"]))
        name, user, work_dir = row["Name"], row["UserName"], clean_reason(row["WorkDir"])
        jobs.append(
            JobState(
                job_id=job_id,
                name=name,
                state=state,
                reason=clean_reason(row["Reason"]),
                nodes=tuple(expand_hostlist(row["NodeList"])),
                node_count=json_number(row["NumNodes"]) or 0,
                submit_time=parse_timestamp(row["SubmitTime"]),
                start_time=start,
                expected_start=expected,
                end_time=end,
                time_limit=parse_time_limit(row["TimeLimit"]),
                partition=row["Partition"],
                work_dir=work_dir,
                user=user,
                stdout=stdout_path(row["StdOut"], job_id, name, user, work_dir),
            )
        )
    return jobs
