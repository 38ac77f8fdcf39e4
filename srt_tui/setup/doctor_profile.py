"""Which profile `srt-tui doctor` checks when `-p` names none: the one the operator would use, said with why.

Checking the demo `local` profile (this machine's local launcher and the mocker) against Slurm only reported a
model path the mocker never reads. So without `-p`: an srtslurm.yaml found the srtctl way (what `apply` would use),
else the profile this user last chose in Launch or submitted with (`remembered_profile`), else the user's only own
profile. The demo is never picked: it runs without Slurm. With none of these, doctor says so and how to make one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.spec.discovery import find_srtslurm
from srt_tui.core.spec.profile import LoadedProfile, ProfileFile, list_profile_files, load_profile
from srt_tui.core.spec.profile_order import DEMO_PROFILE
from srt_tui.state.last_profile import remembered_profile


@dataclass(frozen=True)
class DoctorPick:
    """The profile doctor checks (None: none to check) and the words that say why, or why none."""

    loaded: LoadedProfile | None
    why: str
    fix: str = ""


#: the way to a profile of one's own, said when doctor finds none to check
SETUP_FIX = "`srt-tui setup` probes this cluster and writes one; or name a profile with `srt-tui doctor -p NAME`"


def pick_doctor_profile(cwd: Path | None = None) -> DoctorPick:
    """The profile doctor checks without `-p` (ConfigError when the one picked does not parse: a real problem)."""
    found = find_srtslurm(cwd)
    if found is not None:
        return DoctorPick(load_profile(str(found), cwd), f"found {found} (what `apply` uses without -p)")
    files = [f for f in list_profile_files() if f.name != DEMO_PROFILE]
    remembered = remembered_profile()
    if remembered is not None and any(f.name == remembered for f in files):
        return DoctorPick(load_profile(remembered, cwd), "the profile you last chose in Launch or submitted with")
    return _only_own([f for f in files if f.source == "user"], cwd)


def _only_own(own: list[ProfileFile], cwd: Path | None) -> DoctorPick:
    if len(own) == 1:
        return DoctorPick(load_profile(own[0].name, cwd), "your only profile")
    if own:
        names = ", ".join(f.name for f in own)
        return DoctorPick(None, f"you have several profiles ({names}) and none was used yet", "name one with -p NAME")
    demo = f"the demo `{DEMO_PROFILE}` runs on this machine without Slurm, so there is nothing to check"
    return DoctorPick(None, f"no profile of your own yet: {demo}", SETUP_FIX)
