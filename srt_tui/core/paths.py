"""Where shipped profiles/recipes and user profiles live (repo checkout, wheel, or XDG config)."""

from __future__ import annotations

import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent


def _shipped(name: str) -> Path:
    installed = _PKG / "_data" / name
    return installed if installed.is_dir() else _PKG.parent / name


def shipped_profiles_dir() -> Path:
    """Directory of the profiles that ship with srt-tui."""
    return _shipped("profiles")


def shipped_recipes_dir() -> Path:
    """Directory of the recipes that ship with srt-tui."""
    return _shipped("recipes")


def user_config_dir() -> Path:
    """srt-tui's XDG config directory (`$SRT_TUI_CONFIG_DIR` overrides it, e.g. in tests)."""
    override = os.environ.get("SRT_TUI_CONFIG_DIR")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "srt-tui"


def user_profiles_dir() -> Path:
    """Directory for the operator's own profiles (written by `srt-tui setup`)."""
    return user_config_dir() / "profiles"


def profile_dirs() -> list[tuple[str, Path]]:
    """Profile directories in lookup order: the operator's own first, then shipped."""
    return [("user", user_profiles_dir()), ("shipped", shipped_profiles_dir())]


def user_recipes_dir() -> Path:
    """The operator's own recipes: `<config dir>/recipes` (the TUI's library lists them; `-f NAME` finds them)."""
    return user_config_dir() / "recipes"


def user_state_dir() -> Path:
    """srt-tui's XDG state directory (job index, counter samples); `$SRT_TUI_STATE_DIR` overrides it."""
    override = os.environ.get("SRT_TUI_STATE_DIR")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local/state") / "srt-tui"


def user_cache_dir() -> Path:
    """srt-tui's XDG cache directory (what can be rebuilt: the recipe library's parsed files)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "srt-tui"


def default_output_dir() -> Path:
    """Where job directories go when neither CLI nor profile says: `$SRT_TUI_OUTPUT_DIR` or ./outputs."""
    return Path(os.environ.get("SRT_TUI_OUTPUT_DIR") or "outputs").resolve()
