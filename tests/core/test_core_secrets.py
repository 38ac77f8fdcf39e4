"""Secrets by declaration: known names plus the profile's list; each scope keeps its own value.

srtctl's `recipes/dsv4-pro/.../max-tpt.yaml` gives prefill and decode different values of
`SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK`: a name fragment must not turn it into a secret.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from srt_tui.core.api import prepare
from srt_tui.core.jobdir.write import job_files, job_secrets, write_atomic_dir
from srt_tui.core.render.script import SECRET_WRAP
from tests.core.core_helpers import PROFILES_DIR, raw_yaml, write_yaml

TOKENS = "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"


def _recipe(tmp: Path) -> Path:
    return write_yaml(
        tmp / "r.yaml",
        {
            "name": "per-role",
            "model": {"path": "mock-model"},
            "engine": "mocker",
            "environment": {"WANDB_API_KEY": "global-key"},
            "roles": {
                "prefill": {"nodes": 1, "workers": 1, "env": {TOKENS: "9216", "HF_TOKEN": "prefill-token"}},
                "decode": {
                    "nodes": 1,
                    "workers": 1,
                    "env": {TOKENS: "1152", "HF_TOKEN": "decode-token", "MY_SERVICE_TOKEN": "abc"},
                },  # fmt: skip
            },
            "frontend": {"type": "sglang-router", "env": {"WANDB_API_KEY": "router-key"}},
        },
    )


def test_a_tokens_count_is_configuration_not_a_secret(tmp_path: Path) -> None:
    prep = prepare(_recipe(tmp_path), "local")
    env = {p.role: dict(p.env) for p in prep.plan.workers}
    assert env["prefill"][TOKENS] == "9216" and env["decode"][TOKENS] == "1152"
    assert f"{TOKENS}=9216" in prep.script and f"{TOKENS}=1152" in prep.script
    assert TOKENS not in prep.plan.secret_env


def test_undeclared_credential_name_is_warned_and_declared_one_is_withheld(tmp_path: Path) -> None:
    prep = prepare(_recipe(tmp_path), "local")
    warned = [w for w in prep.plan.warnings if "MY_SERVICE_TOKEN" in w.field]
    assert warned and "secret_env" in warned[0].hint
    profile = raw_yaml(PROFILES_DIR / "local.yaml") | {"secret_env": ["MY_SERVICE_TOKEN"]}
    declared = prepare(_recipe(tmp_path), str(write_yaml(tmp_path / "p.yaml", profile)))
    assert not [w for w in declared.plan.warnings if "MY_SERVICE_TOKEN" in w.field]
    assert "abc" not in declared.script and "MY_SERVICE_TOKEN" in declared.plan.secret_env


def test_each_step_gets_its_own_scopes_secret_value(tmp_path: Path) -> None:
    """Run each worker's env through the real secrets file and wrapper: later scope wins, per process."""
    prep = prepare(_recipe(tmp_path), "local")
    target = write_atomic_dir(
        tmp_path / "job", job_files(prep.job, prep.plan, prep.script), secrets=job_secrets(prep.job)
    )
    assert "prefill-token" not in (target / "sbatch.sh").read_text()
    seen = {}
    for p in [*prep.plan.workers, prep.plan.router.process if prep.plan.router else None]:
        assert p is not None
        refs = " ".join(f"{k}={ref}" for k, ref in p.secret_env)
        handed = " ".join(f'{ref}="${{{ref}-}}"' for _, ref in p.secret_env)  # as the script hands them
        run = subprocess.run(
            [
                "bash",
                "-c",
                f'source "$1"; shift; {handed} "$@"',
                "x",
                str(target / "secrets.env"),
                "bash",
                "-c",
                SECRET_WRAP,
                "srt-secrets",
                refs,
                "bash",
                "-c",
                'printf "%s/%s" "${HF_TOKEN-}" "$WANDB_API_KEY"',
            ],  # fmt: skip
            capture_output=True,
            text=True,
            env={"PATH": os.environ["PATH"]},
            timeout=30,
        )
        assert run.returncode == 0, run.stderr
        seen[p.role] = run.stdout
    # each role its own HF_TOKEN; the router's frontend env wins over the recipe's global one
    assert seen == {"prefill": "prefill-token/global-key", "decode": "decode-token/global-key", "router": "/router-key"}
    for value in ("prefill-token", "decode-token", "global-key", "router-key"):
        assert value not in (target / "sbatch.sh").read_text() and value not in (target / "plan.json").read_text()


def test_a_step_is_handed_only_its_own_scopes_secrets(tmp_path: Path) -> None:
    """secrets.env is sourced, not exported: each srt_step line hands its step exactly the references of the
    scopes it declares (a router never sees a worker's token, an exporter none)."""
    import re

    prep = prepare(_recipe(tmp_path), "local")
    assert "set -a" not in prep.script
    lines = prep.script.splitlines()
    for p in prep.plan.processes():
        line = next(x for x in lines if re.search(rf"srt_step '?{re.escape(p.name)}'? ", x))
        assert set(re.findall(r"(SRT_SECRET_\w+)=\"\$\{", line)) == {ref for _, ref in p.secret_env}, p.name
    assert any(p.secret_env for p in prep.plan.processes())
