"""Setup's time limit: every form Slurm's `--time` takes, and one message for a bad one (the profile model's rule)."""

from __future__ import annotations

import pytest

from srt_tui.setup.proposal import OperatorChoices, build_proposal
from tests.setup.recorded import recorded_run


@pytest.mark.parametrize(
    ("limit", "problems"),
    [
        ("30:00", []),  # minutes:seconds, as sbatch --time takes it (operator pass 6: Setup refused it)
        ("99", []),
        ("1-12", []),
        ("02:00:00", []),
        ("00:20:001", ["default_time_limit: `00:20:001` is not a Slurm time limit"]),  # once, not twice
    ],
)
def test_setup_takes_every_slurm_time_limit_form_and_says_a_bad_one_once(limit: str, problems: list[str]) -> None:
    proposal = build_proposal(recorded_run(), OperatorChoices(time_limit=limit))
    assert proposal.problems == problems
    if not problems:
        assert proposal.profile is not None and proposal.profile.default_time_limit == limit
