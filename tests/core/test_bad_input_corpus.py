"""The bad-input corpus: garbage, bombs, huge files, directories, devices, hostile names, unwritable
outputs and closed pipes, each through the real `srt-tui` in its own process.

Every case exits with its documented code (`srt-tui --help`) and exactly one `srt-tui: …` line on
stderr, never a traceback, and leaves no job behind (no job directory, no index entry). A reader that
closes stdout early (`| head`) is the reader's choice: exit 0 and nothing on stderr.

The read-only and full file systems are real tmpfs mounts (root); inputs are made in tmp_path.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, require
from tests.core.test_core_yaml_limits import billion_laughs

GOOD = REPO / "recipes" / "mocker" / "mocker-1p1d.yaml"
HOSTILE = "r;$(touch PWNED)`touch PWNED`\n'\"x.yaml"


@dataclass(frozen=True)
class Case:
    """One bad input: files to make, the command line, and what must come back."""

    id: str
    argv: tuple[str, ...]  # {d}: the case's folder, {ro}/{full}: the mounts, {good}: a valid recipe
    rc: int
    says: str  # a substring of the one stderr line ("" for a closed pipe: stderr stays empty)
    make: Callable[[Path], None] | None = None
    closed_stdout: bool = False
    stdin: str = ""
    env: dict[str, str] = field(default_factory=dict)


def _write(name: str, data: str | bytes) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)

    return make


def _fifo(folder: Path) -> None:
    os.mkfifo(folder / "fifo.yaml")


def _symlink(folder: Path) -> None:
    (folder / "broken.yaml").symlink_to(folder / "nowhere.yaml")


def _damaged_job(folder: Path) -> None:
    (folder / "job").mkdir()
    (folder / "job" / "job.json").write_bytes(b"\x00garbage{")


def _srtctl_results(folder: Path) -> None:
    """A job directory in srtctl's sa-bench layout (a closed pipe must stay silent for `results` too)."""
    run = folder / "logs" / "sa-bench_isl_8_osl_8"
    run.mkdir(parents=True)
    level = {"max_concurrency": 1, "completed": 1, "duration": 1.0, "output_throughput": 8.0, "errors": [""]}
    (run / "results_concurrency_1_gpus_8.json").write_text(json.dumps(level))


def _busy_dir(folder: Path) -> None:
    (folder / "mine").mkdir()
    (folder / "mine" / "thesis.tex").write_text("precious")


def _full(folder: Path) -> None:
    pass


DRY = ("dry-run", "-p", "local", "-f")
CASES = [
    # recipe files that are not recipes
    Case("garbage", (*DRY, "{d}/g.yaml"), 2, "not UTF-8 text", _write("g.yaml", bytes(range(256)) * 64)),
    Case("nul-bytes", (*DRY, "{d}/n.yaml"), 2, "unacceptable character", _write("n.yaml", "name: x\0\n")),
    Case("empty", (*DRY, "{d}/e.yaml"), 2, "must be a YAML mapping", _write("e.yaml", "")),
    Case("scalar", (*DRY, "{d}/s.yaml"), 2, "must be a YAML mapping", _write("s.yaml", "hello\n")),
    Case("bad-syntax", (*DRY, "{d}/b.yaml"), 2, "invalid YAML", _write("b.yaml", "name: [x\nmodel: {\n")),
    Case("tabs", (*DRY, "{d}/t.yaml"), 2, "invalid YAML", _write("t.yaml", "name: x\n\tmodel: y\n")),
    Case("bomb", (*DRY, "{d}/bomb.yaml"), 2, "YAML bomb", _write("bomb.yaml", billion_laughs())),
    Case("deep", (*DRY, "{d}/deep.yaml"), 2, "nesting deeper", _write("deep.yaml", "[" * 50_000 + "]" * 50_000)),
    Case("alias-cycle", (*DRY, "{d}/c.yaml"), 2, "inside its own anchor", _write("c.yaml", "a: &a {b: *a}\n")),
    Case("huge", (*DRY, "{d}/h.yaml"), 2, "larger than", _write("h.yaml", "# " + "x" * 3_000_000 + "\n")),
    Case("directory", (*DRY, "{d}"), 2, "is a directory with no recipe files"),  # -f DIR checks a library
    Case("dev-zero", (*DRY, "/dev/zero"), 2, "character device"),
    Case("dev-null", (*DRY, "/dev/null"), 2, "character device"),
    Case("fifo", (*DRY, "{d}/fifo.yaml"), 2, "named pipe", _fifo),
    Case("missing", (*DRY, "{d}/none.yaml"), 2, "recipe file not found"),
    Case("broken-symlink", (*DRY, "{d}/broken.yaml"), 2, "recipe file not found", _symlink),
    Case("hostile-name", (*DRY, "{d}/" + HOSTILE), 2, "not UTF-8", _write(HOSTILE, b"\xff\xfe")),
    Case("no-variant", (*DRY, "{good}:nope"), 2, "has no variants"),
    Case("bad-topology", ("dry-run", "-p", "local", "-t", "9Q", "-f", "{good}"), 2, "--topology"),
    # profiles that are not profiles
    Case("profile-garbage", ("dry-run", "-f", "{good}", "-p", "{d}/p.yaml"), 2, "not UTF-8", _write("p.yaml", b"\x80")),
    Case("profile-dir", ("dry-run", "-f", "{good}", "-p", "{d}/"), 2, "is a directory"),
    Case("profile-dev-zero", ("dry-run", "-f", "{good}", "-p", "/dev/zero"), 2, "character device"),
    # the name is a positional: its error names what was typed, not `--profile` (op12)
    Case("profile-unknown", ("profiles", "show", "no-such-profile"), 2, "profiles show: no profile named"),
    Case(
        "profile-unknown-near",
        ("profiles", "show", "lcal"),
        2,
        "error: profiles show: no profile named `lcal` (fix: did you mean `local`?)",
    ),
    # outputs that cannot be written
    Case("out-read-only", (*DRY, "{good}", "-o", "{ro}/x"), 2, "Read-only file system"),
    Case("out-full", (*DRY, "{good}", "-o", "{full}/x"), 2, "No space left on device"),
    Case("out-is-file", (*DRY, "{good}", "-o", "{d}/f"), 2, "exists and is not a directory", _write("f", "x")),
    Case("out-under-file", (*DRY, "{good}", "-o", "{d}/f/x"), 2, "is not a directory", _write("f", "x")),
    Case("out-foreign-dir", (*DRY, "{good}", "-o", "{d}/mine"), 2, "not replacing it", _busy_dir),
    # closed pipes: silent, 141 (128 + SIGPIPE) as other tools under `| head`
    Case("pipe-status", ("status",), 141, "", closed_stdout=True),
    Case("pipe-results", ("results", "{d}", "--csv"), 141, "", _srtctl_results, closed_stdout=True),
    Case("pipe-status-json", ("status", "--json"), 141, "", closed_stdout=True),
    Case("pipe-profiles", ("profiles",), 141, "", closed_stdout=True),
    Case("pipe-profiles-json", ("profiles", "--json"), 141, "", closed_stdout=True),
    Case("pipe-profiles-show", ("profiles", "show", "local"), 141, "", closed_stdout=True),
    Case("pipe-schema", ("schema", "recipe"), 141, "", closed_stdout=True),
    Case("pipe-dry-run", ("dry-run", "-p", "local", "-f", "{good}"), 141, "", closed_stdout=True),
    Case("pipe-help", ("--help",), 0, "", closed_stdout=True),  # argparse swallows its own write error
    # job commands
    Case("status-unknown", ("status", "nope"), 2, "no job directory found"),
    Case("status-damaged", ("status", "{d}/job"), 2, "job.json is unreadable", _damaged_job),
    # seconds: a negative (or infinite) one is refused as `status -n -5` is, before any job is looked for (op11:
    # `wait --timeout -5` waited, then said `timed out after -5s`, exit 124)
    Case("wait-timeout-negative", ("wait", "nope", "--for", "done", "--timeout", "-5"), 2, "--timeout: -5 s: give 0"),
    Case("wait-timeout-inf", ("wait", "nope", "--timeout", "inf"), 2, "--timeout: inf s: give 0 (no limit) or more"),
    Case("wait-interval-zero", ("wait", "nope", "--interval", "0"), 2, "--interval: 0 s: give 0.5 to 86400 seconds"),
    Case("status-interval-negative", ("status", "-w", "-n", "-5"), 2, "--interval: -5 s: give 0.5 to 86400"),
    Case("setup-timeout-negative", ("setup", "--probe", "--timeout", "-5"), 2, "--timeout: -5 s: give more than 0"),
    Case("doctor-node-timeout-zero", ("doctor", "-p", "local", "--node-timeout", "0"), 2, "--node-timeout: 0 s: give"),
    Case(
        "apply-garbage", ("apply", "-y", "-p", "local", "-f", "{d}/g.yaml"), 2, "not UTF-8", _write("g.yaml", b"\xff")
    ),
    Case(
        "apply-bomb",
        ("apply", "-y", "-p", "local", "-f", "{d}/b.yaml"),
        2,
        "YAML bomb",
        _write("b.yaml", billion_laughs()),
    ),
    Case(
        "apply-out-read-only",
        ("apply", "-y", "-p", "local", "-f", "{good}", "-o", "{ro}/jobs"),
        2,
        "Read-only file system",
    ),
    Case("apply-no-tty", ("apply", "-p", "local", "-f", "{good}"), 1, "no terminal to confirm on", stdin="y\n"),
    Case(
        "apply-no-slurm",
        ("apply", "-y", "-p", "nvidia-h100", "-f", str(REPO / "recipes" / "nvidia" / "h100-1p1d-sglang.yaml")),
        3,
        "no Slurm controller answers",
    ),
    Case(
        "apply-out-is-file",
        ("apply", "-y", "-p", "local", "-f", "{good}", "-o", "{d}/f"),
        2,
        "cannot write",
        _write("f", "x"),
    ),
    Case("wait-unknown", ("wait", "nope", "--timeout", "1"), 2, "no job directory found"),
    Case("cancel-damaged", ("cancel", "{d}/job"), 2, "job.json is unreadable", _damaged_job),
    Case("results-unknown", ("results", "nope"), 2, "is no job directory, known job id or sweep group"),
    Case("results-none-yet", ("results", "{d}"), 1, "no benchmark results yet"),
    Case("profiles-show-device", ("profiles", "show", "/dev/zero"), 2, "character device"),
]


@contextlib.contextmanager
def _tmpfs(path: Path, options: str) -> Iterator[bool]:
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True)
    try:
        yield mounted.returncode == 0
    finally:
        if mounted.returncode == 0:
            subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _run(case: Case, folder: Path, mounts: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if case.make is not None:
        case.make(folder)
    fill = {"{d}": str(folder), "{good}": str(GOOD), **mounts}
    argv = []
    for arg in case.argv:
        for key, value in fill.items():
            arg = arg.replace(key, value)
        argv.append(arg)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "SRT_TUI_STATE_DIR": str(folder / ".state"),
        "SRT_TUI_OUTPUT_DIR": str(folder / ".outputs"),
        "SRT_TUI_CONFIG_DIR": str(folder / ".config"),
        "SLURM_CONF": "/nonexistent/slurm.conf",  # nothing here may reach a real controller
        **case.env,
    }
    env.pop("SRT_TUI_DEBUG", None)
    read_end, write_end = os.pipe()
    if case.closed_stdout:
        os.close(read_end)  # every write to stdout now fails with EPIPE, as after `| head -1` exits
    try:
        return subprocess.run(
            [sys.executable, "-m", "srt_tui.cli", *argv],
            input=case.stdin,
            stdout=write_end if case.closed_stdout else subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=folder,
            timeout=60,
        )
    finally:
        os.close(write_end)
        if not case.closed_stdout:
            os.close(read_end)


@pytest.fixture(scope="module")
def outcomes(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, tuple[Path, Any]]]:
    """Every case at once, a few processes at a time, with a read-only and a full tmpfs mounted."""
    base = tmp_path_factory.mktemp("corpus")
    with _tmpfs(base / "ro", "ro,size=1m") as ro, _tmpfs(base / "full", "size=64k") as full:
        if full:
            with contextlib.suppress(OSError):
                (base / "full" / "filler").write_bytes(os.urandom(1 << 20))
        mounts = {"{ro}": str(base / "ro"), "{full}": str(base / "full")}
        folders = [tmp_path_factory.mktemp(case.id) for case in CASES]
        with ThreadPoolExecutor(4) as pool:
            done = list(pool.map(lambda c, f: _run(c, f, mounts), CASES, folders))
        yield {"mounted": (base, ro and full)} | {c.id: (f, p) for c, f, p in zip(CASES, folders, done)}


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 30 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_gets_one_line_and_its_exit_code(
    case: Case, outcomes: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]
) -> None:
    if "{ro}" in " ".join(case.argv) or "{full}" in " ".join(case.argv):
        require(bool(outcomes["mounted"][1]), "mounting a tmpfs needs root (a read-only and a full file system)")
    folder, proc = outcomes[case.id]
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == case.rc, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    if case.closed_stdout:
        assert lines == [], proc.stderr
    else:
        assert len(lines) == 1 and lines[0].startswith("srt-tui: "), proc.stderr
        assert case.says in lines[0], lines[0]
    # no job left behind: nothing indexed, no job directory, nothing run by a hostile name
    assert not (folder / ".state" / "jobs.jsonl").exists()
    assert not (folder / ".outputs").exists() or not any((folder / ".outputs").iterdir())
    assert not (folder / "PWNED").exists()


def test_every_exit_code_of_the_corpus_is_documented_in_help() -> None:
    from srt_tui.cli.main import EXIT_CODES, build_parser

    assert EXIT_CODES in build_parser(["status"]).format_help()
    documented = {int(line.split()[0]) for line in EXIT_CODES.splitlines()[1:] if line.strip()[:1].isdigit()}
    assert {c.rc for c in CASES} <= documented
