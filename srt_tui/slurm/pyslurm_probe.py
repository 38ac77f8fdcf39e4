"""Can pyslurm be imported here without ending the process? Asked of a child Python, once per process.

``import pyslurm`` runs libslurm's ``slurm_init``: with no findable configuration it calls ``fatal()``
and the whole process exits 1 (no exception), and with ``SLURM_CONF`` naming a missing file it retries
for 60 s first. So pyslurm is imported in this process only after a child process imported it with the
same environment, and the child also reads the controller's version (``slurmctld.Config.load()``) to
tell a pyslurm built for another Slurm.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass

#: what the child runs: import, then the controller's version; one JSON line on stdout
_CHILD = """
import json
import pyslurm
out = {"pyslurm": str(getattr(pyslurm, "__version__", "") or "")}
try:
    config = pyslurm.slurmctld.Config.load()
    out["slurm"] = str(config.version or "")
    out["cluster"] = str(config.cluster_name or "")
except Exception as exc:
    out["error"] = str(exc) or type(exc).__name__
print(json.dumps(out))
"""
PROBE_TIMEOUT_S = 20.0
CLI_FIX = "use the command-line transport (--transport cli or SRT_TUI_SLURM_TRANSPORT=cli)"
#: the probe's problem when pyslurm is not installed (the usual case: `auto` then uses the commands, saying nothing)
NOT_INSTALLED = "pyslurm is not installed (pip install 'srt-tui[pyslurm]', Slurm 25.11)"


@dataclass(frozen=True)
class PyslurmProbe:
    """What a child Python found: whether pyslurm imports, its version and the controller's."""

    #: True when ``import pyslurm`` is safe in this process
    importable: bool
    pyslurm_version: str = ""
    #: the controller's Slurm version, when it answered
    slurm_version: str = ""
    cluster: str = ""
    #: one line with the fix when pyslurm cannot be used here (not importable, or built for another Slurm)
    problem: str = ""
    #: why the controller did not answer the child (pyslurm may still be used: ``ping`` says when it is back)
    unreachable: str = ""

    @property
    def usable(self) -> bool:
        """Importable, and not built for another Slurm than the controller's."""
        return self.importable and not self.problem


def _major_minor(version: str) -> str:
    """``25.11`` of ``25.11.7`` (pyslurm's version starts with the Slurm release it is built for)."""
    return ".".join(version.split(".")[:2])


def mismatch(pyslurm_version: str, slurm_version: str) -> str:
    """One line naming a pyslurm built for another Slurm than the controller's, with the fix; '' if they match."""
    if not pyslurm_version or not slurm_version or _major_minor(pyslurm_version) == _major_minor(slurm_version):
        return ""
    return (
        f"pyslurm {pyslurm_version} is built for Slurm {_major_minor(pyslurm_version)} but the controller runs "
        f"Slurm {slurm_version}: pip install 'pyslurm=={_major_minor(slurm_version)}.*' (built against this "
        f"Slurm), or {CLI_FIX}"
    )


def _tail(text: str) -> str:
    """libslurm's last words, without its ``python: fatal:`` prefixes."""
    lines = [re.sub(r"^\S+: (fatal|error): ", "", ln.strip()) for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def _run_child(env: dict[str, str], timeout: float) -> PyslurmProbe:
    """Import pyslurm in a child Python with this environment; what it found, or why it died."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return PyslurmProbe(False, problem=f"`import pyslurm` did not finish within {timeout:g} s; {CLI_FIX}")
    except OSError as exc:
        return PyslurmProbe(False, problem=f"cannot start {sys.executable} to try pyslurm: {exc}")
    if proc.returncode != 0:
        said = _tail(proc.stderr) or f"exit code {proc.returncode}"
        if "configuration" in said.lower():
            why = f"libslurm finds no Slurm configuration ({said}): set SLURM_CONF, or {CLI_FIX}"
        elif "error while loading" in said.lower() or "cannot open shared object" in said.lower():
            why = f"pyslurm cannot load its libslurm ({said}): it is built for another Slurm; {CLI_FIX}"
        else:
            why = f"`import pyslurm` failed ({said}); {CLI_FIX}"
        return PyslurmProbe(False, problem=why)
    try:
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return PyslurmProbe(False, problem=f"`import pyslurm` printed no answer ({_tail(proc.stderr)}); {CLI_FIX}")
    version, slurm = str(found.get("pyslurm", "")), str(found.get("slurm", ""))
    error = str(found.get("error") or "")
    unreachable = f"slurmctld not reachable via pyslurm {version}: {error}; check SLURM_CONF / munge" if error else ""
    return PyslurmProbe(True, version, slurm, str(found.get("cluster", "")), mismatch(version, slurm), unreachable)


_CACHE: dict[tuple[str, str], PyslurmProbe] = {}


def probe_pyslurm(timeout: float = PROBE_TIMEOUT_S, *, fresh: bool = False) -> PyslurmProbe:
    """Whether pyslurm can be imported in this process (asked of a child; remembered per SLURM_CONF)."""
    if "pyslurm" in sys.modules:  # imported already (and this process survived it)
        return PyslurmProbe(True, str(getattr(sys.modules["pyslurm"], "__version__", "") or ""))
    if importlib.util.find_spec("pyslurm") is None:
        return PyslurmProbe(False, problem=NOT_INSTALLED)
    env = dict(os.environ)
    env.pop("SLURM_JWT", None)
    conf = env.get("SLURM_CONF")
    if conf is not None and not os.path.isfile(conf):  # libslurm would retry for 60 s, then exit
        return PyslurmProbe(False, problem=f"SLURM_CONF={conf!r} is not a file: fix SLURM_CONF, or {CLI_FIX}")
    key = (sys.executable, conf or "")
    if fresh or key not in _CACHE:
        _CACHE[key] = _run_child(env, timeout)
    return _CACHE[key]
