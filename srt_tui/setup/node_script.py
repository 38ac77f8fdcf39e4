"""The probe job's bash script (prints one JSON document) and the reader of what it printed."""

from __future__ import annotations

import ipaddress
import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from srt_tui.setup.gpu_tools import GPU_TOOLS, GpuInfo, ToolAnswer, tool_named

BEGIN = "@@SRT-TUI-PROBE-BEGIN@@"
END = "@@SRT-TUI-PROBE-END@@"

_PRELUDE = r"""#!/bin/bash
# srt-tui setup: node probe. Prints one JSON document between two marker lines; changes nothing.
set -u
T=__TIMEOUT__
ERRF=$(mktemp 2>/dev/null) || ERRF=/dev/null  # never a predictable path in the shared /tmp
esc() {
  local s
  s=$(printf '%s' "$1" | tr -d '\000-\010\013\014\016-\037')
  s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//$'\t'/\\t}; s=${s//$'\r'/}; s=${s//$'\n'/\\n}
  printf '"%s"' "$s"
}
run() { OUT=$(timeout "$T" "$@" 2>"$ERRF"); RC=$?; ERR=$(head -c 2000 "$ERRF" 2>/dev/null); }
yn() { if "$@"; then printf true; else printf false; fi; }
"""


def render_node_script(paths: Sequence[str], extra_path: str | None = None, tool_timeout: float = 15.0) -> str:
    """The bash script the probe job runs on one compute node."""
    out = [_PRELUDE.replace("__TIMEOUT__", f"{max(1, round(tool_timeout))}")]
    if extra_path:
        out.append(f'export PATH={shlex.quote(extra_path)}:"$PATH"\n')
    out.append(f"echo {BEGIN}\n")
    out.append(
        'printf \'{"node": %s, "slurmd_nodename": %s\' "$(esc "$(hostname 2>/dev/null)")" '
        '"$(esc "${SLURMD_NODENAME:-}")"\n'
    )
    out.append("printf ', \"tools\": ['\n")
    for i, tool in enumerate(GPU_TOOLS):
        sep = ", " if i else ""
        name = shlex.quote(tool.name)
        out.append(f"if command -v {name} >/dev/null 2>&1; then\n")
        out.append(f'  printf \'%s{{"tool": %s, "found": true, "runs": [\' \'{sep}\' "$(esc {name})"\n')
        for j, argv in enumerate(tool.commands):
            comma = ", " if j else ""
            out.append(f"  run {' '.join(shlex.quote(a) for a in argv)}\n")
            out.append(
                f'  printf \'{comma}{{"rc": %d, "out": %s, "err": %s}}\' "$RC" "$(esc "$OUT")" "$(esc "$ERR")"\n'
            )
        out.append("  printf ']}'\n")
        out.append(f'else printf \'%s{{"tool": %s, "found": false, "runs": []}}\' \'{sep}\' "$(esc {name})"; fi\n')
    out.append("printf ']'\n")
    out.append(
        'printf \', "devices": {"/dev/kfd": %s, "/dev/dri": %s}\' "$(yn test -e /dev/kfd)" "$(yn test -e /dev/dri)"\n'
    )
    out.append(
        "if command -v ip >/dev/null 2>&1; then run ip -j addr; "
        'printf \', "ip": {"rc": %d, "out": %s}\' "$RC" "$(esc "$OUT")"; '
        "else printf ', \"ip\": null'; fi\n"
    )
    out.append('printf \', "sys_net": %s\' "$(esc "$(ls /sys/class/net 2>/dev/null)")"\n')
    out.append(
        "if command -v srun >/dev/null 2>&1; then run srun --help; "
        'printf \', "srun": true, "pyxis": %s\' "$(yn grep -q -- --container-image <<<"$OUT")"; '
        'else printf \', "srun": false, "pyxis": false\'; fi\n'
    )
    out.append("printf ', \"paths\": {'\n")
    for i, path in enumerate(paths):
        q = shlex.quote(path)
        sep = ", " if i else ""
        out.append(
            f'printf \'{sep}%s: {{"exists": %s, "dir": %s, "readable": %s}}\' "$(esc {q})" '
            f'"$(yn test -e {q})" "$(yn test -d {q})" "$(yn test -r {q})"\n'
        )
    out.append("printf '}}\\n'\n")
    out.append(f'echo {END}\n[ "$ERRF" = /dev/null ] || rm -f "$ERRF"\n')
    return "".join(out)


@dataclass(frozen=True)
class Interface:
    """One network interface of the node and its IPv4 addresses."""

    name: str
    ipv4: tuple[str, ...] = ()
    up: bool = True

    @property
    def private_ipv4(self) -> str | None:
        """The first private (RFC 1918) IPv4 address, if any."""
        for addr in self.ipv4:
            try:
                ip = ipaddress.IPv4Address(addr)
            except ValueError:
                continue
            if ip.is_private and not ip.is_loopback and not ip.is_link_local:
                return addr
        return None


@dataclass(frozen=True)
class PathCheck:
    """An operator-named path as the compute node sees it."""

    path: str
    exists: bool
    is_dir: bool = False
    readable: bool = False


@dataclass(frozen=True)
class NodeReport:
    """Everything the probe job saw on one compute node."""

    node: str
    tools: tuple[ToolAnswer, ...] = ()
    devices: dict[str, bool] = field(default_factory=dict)
    interfaces: tuple[Interface, ...] = ()
    ip_available: bool = True
    srun: bool = False
    pyxis: bool = False
    paths: tuple[PathCheck, ...] = ()

    @property
    def gpu_tool(self) -> ToolAnswer | None:
        """The first tool (in table order) that answered with GPUs."""
        return next((t for t in self.tools if t.answered), None)

    def interface(self, name: str) -> Interface | None:
        """The interface called ``name`` on this node, or None."""
        return next((i for i in self.interfaces if i.name == name), None)


def _interfaces(ip_doc: Any, sys_net: str) -> tuple[tuple[Interface, ...], bool]:
    """Interfaces from ``ip -j addr``; without ``ip``, names from /sys/class/net (no addresses)."""
    if isinstance(ip_doc, dict) and ip_doc.get("rc") == 0:
        try:
            links = json.loads(str(ip_doc.get("out") or "[]"))
        except ValueError:
            links = []
        found: list[Interface] = []
        for link in links if isinstance(links, list) else []:
            if not isinstance(link, dict) or not link.get("ifname"):
                continue
            addrs = tuple(
                str(a.get("local"))
                for a in link.get("addr_info", [])
                if isinstance(a, dict) and a.get("family") == "inet" and a.get("local")
            )
            up = "UP" in (link.get("flags") or []) or link.get("operstate") == "UP"
            found.append(Interface(str(link["ifname"]), addrs, bool(up)))
        return tuple(found), True
    return tuple(Interface(name) for name in sys_net.split() if name), False


def _tool_answer(entry: dict[str, Any]) -> ToolAnswer:
    runs = [r for r in entry.get("runs", []) if isinstance(r, dict)]
    name = str(entry.get("tool", ""))
    codes = tuple(int(r.get("rc", 1)) for r in runs)
    outputs = [str(r.get("out", "")) if int(r.get("rc", 1)) == 0 else "" for r in runs]
    row = tool_named(name)
    gpus: tuple[GpuInfo, ...] = tuple(row.parse(outputs)) if row is not None and any(outputs) else ()
    return ToolAnswer(
        tool=name,
        found=bool(entry.get("found")),
        exit_codes=codes,
        outputs=tuple(str(r.get("out", "")) or str(r.get("err", "")) for r in runs),
        gpus=gpus,
        timed_out=124 in codes,
    )


def parse_node_output(text: str) -> NodeReport:
    """The NodeReport from the probe job's output; ValueError when the document is missing or broken."""
    if BEGIN not in text or END not in text:
        raise ValueError("the probe job's output has no probe document (did the script run?)")
    body = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    try:
        doc = json.loads(body)
    except ValueError as exc:
        raise ValueError(f"the probe document is not valid JSON: {exc}") from None
    interfaces, ip_ok = _interfaces(doc.get("ip"), str(doc.get("sys_net", "")))
    paths = tuple(
        PathCheck(str(p), bool(v.get("exists")), bool(v.get("dir")), bool(v.get("readable")))
        for p, v in (doc.get("paths") or {}).items()
        if isinstance(v, dict)
    )
    return NodeReport(
        node=str(doc.get("slurmd_nodename") or doc.get("node") or "?"),
        tools=tuple(_tool_answer(t) for t in doc.get("tools", []) if isinstance(t, dict)),
        devices={str(k): bool(v) for k, v in (doc.get("devices") or {}).items()},
        interfaces=interfaces,
        ip_available=ip_ok,
        srun=bool(doc.get("srun")),
        pyxis=bool(doc.get("pyxis")),
        paths=paths,
    )
