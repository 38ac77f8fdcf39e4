"""Masking for display: known and declared secret names masked, their values redacted from free text."""

from __future__ import annotations

from srt_tui.core.spec.secrets import MASK, masked_env, redact


def test_known_and_declared_secrets_are_masked_others_kept() -> None:
    env = {"HF_TOKEN": "hf_abc123", "MY_KEY": "k-42-secret", "VLLM_PORT": "20000"}
    assert masked_env(env, ["MY_KEY"]) == {"HF_TOKEN": MASK, "MY_KEY": MASK, "VLLM_PORT": "20000"}
    assert masked_env(env)["MY_KEY"] == "k-42-secret"  # not declared, not a known name: not guessed


def test_redact_masks_every_occurrence_longest_first_and_leaves_short_values() -> None:
    text = "token=hf_abc123 again hf_abc123; id=hf_abc; on"
    assert redact(text, ["hf_abc", "hf_abc123", "on"]) == f"token={MASK} again {MASK}; id={MASK}; on"
