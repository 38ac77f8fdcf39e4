"""Shell quoting for the launch script: literals single-quoted, runtime placeholders as quoted expansions."""

from __future__ import annotations

import re
import shlex

from srt_tui.core.placeholders import PLACEHOLDER

_VARS = {
    "bind": "${SRT_BIND}",
    "logs": "${SRT_STEP_LOGS}",
    "job_id": "${SRT_JOB_ID}",
    "job_dir": "${SRT_JOB_DIR}",
    "scratch": "${SRT_SCRATCH}",
}
_SAFE = re.compile(r"^[A-Za-z0-9_./:=,@%+-]+$")


def _dq_escape(text: str) -> str:
    return re.sub(r'([\\"$`])', r"\\\1", text)


def word(value: str) -> str:
    """One shell word: inert whatever it contains; placeholders become `"${...}"` expansions."""
    if not PLACEHOLDER.search(value):
        return value if _SAFE.match(value) else shlex.quote(value)
    out, pos = ['"'], 0
    for m in PLACEHOLDER.finditer(value):
        out.append(_dq_escape(value[pos : m.start()]))
        if m.group(2) is not None:
            out.append("${SRT_NODE_IPS[" + m.group(2) + "]}")
        elif m.group(3) is not None:
            out.append("${SRT_NODES[" + m.group(3) + "]}")
        else:
            out.append(_VARS[m.group(1)])
        pos = m.end()
    out.append(_dq_escape(value[pos:]))
    out.append('"')
    return "".join(out)


def words(values: list[str] | tuple[str, ...]) -> str:
    """Space-joined shell words."""
    return " ".join(word(v) for v in values)


def json_str(value: str) -> str:
    """A JSON string literal (for JSON assembled by the script)."""
    import json

    return json.dumps(value)
