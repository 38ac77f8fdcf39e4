"""Run one external command with a timeout; every failure becomes a plain result, never an exception."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class CommandResult:
    """What a command did: exit code (None if it never ran or timed out), output, and why it failed."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    missing: bool = False
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """True if the command ran and exited 0."""
        return self.returncode == 0

    @property
    def said(self) -> str:
        """The command's last words (stderr, else stdout), one line."""
        text = (self.stderr or self.stdout).strip()
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return " / ".join(lines[-2:])

    def describe(self, timeout: float) -> str:
        """Why it failed, for a finding."""
        command = " ".join(self.argv)
        if self.missing:
            return f"`{self.argv[0]}` not found on PATH"
        if self.timed_out:
            return f"`{command}` did not answer within {timeout:g} s"
        return f"`{command}` exited {self.returncode}: {self.said or 'no output'}"


def run_command(
    argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> CommandResult:
    """Run ``argv`` with our environment (plus ``env``); never raises for missing tools or timeouts."""
    full_env = dict(os.environ)
    full_env.pop("SLURM_JWT", None)
    if env:
        full_env.update(env)
    args = tuple(argv)
    try:
        proc = subprocess.run(
            list(args),
            env=full_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        return CommandResult(args, None, missing=True)
    except PermissionError as exc:
        return CommandResult(args, None, stderr=str(exc))
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
        return CommandResult(args, None, stdout=out, timed_out=True)
    return CommandResult(args, proc.returncode, proc.stdout, proc.stderr)
