"""The wizard's model without Textual: role form ↔ recipe, presets, host-free paths, lean start-up imports."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import load_recipe
from srt_tui.tui.display import display_path, scrub
from srt_tui.tui.launch.wizard import RoleForm, form_of, presets_for, recipe_from_form, safe_prepare, slurm_request

REPO = Path(__file__).resolve().parents[2]


def test_form_round_trip_and_typed_values_become_a_plan() -> None:
    recipe, source = load_recipe(REPO / "recipes/mocker/mocker-1p1d.yaml")
    loaded = load_profile("local")
    forms = form_of(recipe, loaded)
    assert forms == [RoleForm("prefill", "1", "1", "8", "8"), RoleForm("decode", "1", "1", "8", "8")]
    reading = recipe_from_form(recipe, [RoleForm("prefill", "2", "1", "4", "4"), forms[1]])
    assert reading.problems == [] and not reading.unread
    prepared, problems = safe_prepare(reading.recipe, loaded, source)
    assert prepared is not None and problems == []
    assert [w.visible_devices for w in prepared.plan.workers if w.role == "prefill"] == ["0,1,2,3", "4,5,6,7"]


def test_unreadable_values_name_their_field() -> None:
    recipe, _ = load_recipe(REPO / "recipes/mocker/mocker-1p1d.yaml")
    reading = recipe_from_form(
        recipe, [RoleForm("prefill", "", "0", "x", "-1"), RoleForm("decode", "1", "colocate", "8", "8")]
    )
    fields = [p.field for p in reading.problems]
    assert fields == ["roles.prefill.workers", "roles.prefill.nodes", "roles.prefill.gpus"]
    assert all(p.hint for p in reading.problems) and reading.unread == {"prefill"}


def test_tp_is_refused_by_the_core_in_the_cli_words() -> None:
    """The TP box's text goes to the recipe as typed and the core refuses it, as `srt-tui dry-run` refuses the file:
    one check, one wording (operator pass: the CLI accepted `tp-size: eight`, the TUI refused it)."""
    recipe, source = load_recipe(REPO / "recipes/mocker/mocker-1p1d.yaml")
    loaded = load_profile("local")
    reading = recipe_from_form(
        recipe, [RoleForm("prefill", "1", "1", "8", "8x"), RoleForm("decode", "1", "1", "8", "0")]
    )
    assert reading.problems == [] and reading.recipe.roles["prefill"].args["tp-size"] == "8x"
    prepared, problems = reading.checked(*safe_prepare(reading.recipe, loaded, source))
    assert prepared is None
    assert [p.render() for p in problems] == [
        "roles.prefill.args.tp-size: `8x` is not a whole number "
        "(fix: give the tensor-parallel size as a whole number, e.g. 8)",
        "roles.decode.args.tp-size: must be at least 1 (fix: give the tensor-parallel size as a whole number, e.g. 8)",
    ]


def test_a_role_that_does_not_read_hides_no_other_roles_error() -> None:
    """Decode's workers empty, prefill's TP 48 on 8 GPUs: both refusals at once, not decode's alone; decode's checks
    against the recipe's kept values are not shown (they are not what the form says)."""
    recipe, source = load_recipe(REPO / "recipes/mocker/mocker-1p1d.yaml")
    loaded = load_profile("local")
    reading = recipe_from_form(
        recipe, [RoleForm("prefill", "1", "1", "8", "48"), RoleForm("decode", "", "1", "8", "2")]
    )
    prepared, problems = reading.checked(*safe_prepare(reading.recipe, loaded, source))
    assert prepared is None
    assert [(p.field, p.message) for p in problems if p.severity == "error"] == [
        ("roles.decode.workers", "is empty"),
        ("roles.prefill.args.tp-size", "TP 48 = 48 GPUs, but each prefill worker has 8"),
    ]


def test_plan_errors_are_reported_not_raised() -> None:
    recipe, source = load_recipe(REPO / "recipes/nvidia/h100-1p1d-sglang.yaml")
    prefill = recipe.roles["prefill"]
    wrong = recipe.model_copy(
        update={"roles": {**recipe.roles, "prefill": prefill.model_copy(update={"args": {"tp-size": 16}})}}
    )
    prepared, problems = safe_prepare(wrong, load_profile("nvidia-h100"), source)
    assert prepared is None and problems[0].field == "roles.prefill.args.tp-size"
    # an alias the profile lacks is no error: it is used as written, with a warning (srtctl's meaning)
    prepared, problems = safe_prepare(recipe, load_profile("local"), source)
    assert prepared is not None and any(w.field == "model.path" for w in prepared.plan.warnings)


def test_presets_say_what_they_need_or_why_they_do_not_fit() -> None:
    recipe, _ = load_recipe(REPO / "recipes/amd/mi300x-vllm-moriio-colocated.yaml")
    presets = {p.label: p.note for p in presets_for(recipe, load_profile("amd-mi300x"))}
    assert presets["1P1D"] == "1 node  (recipe)"
    assert presets["2P1D"].startswith("✗")  # two TP4 prefill workers leave no room for colocated decode
    agg, _ = load_recipe(REPO / "recipes/mocker/mocker-agg2.yaml")
    assert [p.label for p in presets_for(agg, load_profile("local"))] == ["agg2", "agg1", "agg4"]


def test_slurm_request_uses_gres_on_gres_profiles() -> None:
    recipe, source = load_recipe(REPO / "recipes/amd/mi300x-vllm-moriio-colocated.yaml")
    prepared, _ = safe_prepare(recipe, load_profile("amd-mi300x"), source)
    assert prepared is not None
    rows = dict(slurm_request(prepared))
    assert rows["GPUs"] == "8 (1 × 8) via --gres=gpu:8" and rows["partition"] == "mi300x"


def test_paths_shown_without_host_directories(tmp_path: Path) -> None:
    assert display_path(REPO / "recipes/mocker/mocker-1p1d.yaml") == "recipes/mocker/mocker-1p1d.yaml"
    assert display_path(REPO / "profiles/local.yaml") == "profiles/local.yaml"
    assert str(REPO) not in scrub(f"{REPO}/profiles/local.yaml:3: bad")


def test_first_frame_does_not_import_pydantic_or_the_planner() -> None:
    code = (
        "import sys, srt_tui.tui.app, srt_tui.tui.launch.screen; "
        "print('pydantic' in sys.modules, 'srt_tui.core.plan.model' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_the_slurm_check_at_start_loads_no_job_models() -> None:
    """The app asks whether Slurm answers while its first frame is drawn: the check imports neither the submission
    code nor pydantic (through `slurm.submit` it took ~0.3 s of the one interpreter lock from the first frame)."""
    code = (
        "import sys; import srt_tui.slurm.select as select; from srt_tui.slurm.errors import SlurmUnavailable\n"
        "def no_slurm(transport='auto'): raise SlurmUnavailable('no controller here')\n"
        "select.get_client = no_slurm\n"
        "from srt_tui.tui.app import SrtTuiApp\n"
        "app = SrtTuiApp(check_slurm=True); got = []; app.post_message = got.append\n"
        "SrtTuiApp.probe_slurm.__wrapped__(app)\n"
        "print(got[0].reachable, 'srt_tui.slurm.submit' in sys.modules, 'pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "False"]


def test_the_tui_starts_its_recipe_reader_before_the_slurm_layer_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's first rows are on the first screen's path: it starts before the held-jobs check (which imports
    the Slurm layer) runs, and that check still runs before the app."""
    import srt_tui.slurm.orphans
    import srt_tui.tui.app
    from srt_tui.cli import main as cli
    from srt_tui.cli import terminal
    from srt_tui.tui.launch import recipe_reader

    order: list[str] = []
    monkeypatch.setattr(recipe_reader, "start_early", lambda profiles=False: order.append(f"reader {profiles}"))

    def settle(transport: str = "auto") -> list[str]:
        order.append("settle")
        return []

    def run_app(args: argparse.Namespace) -> int:
        order.append(f"app {args.profile}")
        return 0

    monkeypatch.setattr(srt_tui.slurm.orphans, "settle", settle)
    monkeypatch.setattr(srt_tui.tui.app, "run_app", run_app)
    monkeypatch.setattr(terminal, "not_terminals", lambda: [])  # as on a terminal
    assert cli.main(["-p", "local"]) == 0
    assert order == ["reader False", "settle", "app local"]


def test_the_tui_start_parses_its_options_without_every_commands_parser() -> None:
    """`srt-tui -p NAME` reads two options: the job, setup and shell commands' parsers (their modules and ~0.1 s
    of argparse) are built only for a command or `--help`, which lists them."""
    code = (
        "import sys; from srt_tui.cli.main import build_parser; "
        "args = build_parser(['-p', 'local', '--read-only']).parse_args(['-p', 'local', '--read-only']); "
        "print(args.profile, args.read_only, 'srt_tui.cli.jobs' in sys.modules, 'srt_tui.cli.setup' in sys.modules); "
        "build_parser(['--help']); print('srt_tui.cli.jobs' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["local", "True", "False", "False", "True"]


@pytest.mark.parametrize(
    ("recipe", "profile", "label", "gpus", "dropped"),
    [
        ("recipes/nvidia/h100-2p1d-sglang.yaml", "nvidia-h100", "agg4", 4, ()),  # 2×4 + 1×8 GPUs: four of 4
        ("recipes/amd/mi355x-1p1d-sglang-mori.yaml", "amd-mi355x", "agg2", 8, ("disaggregation-transfer-backend",)),
        ("recipes/amd/mi300x-vllm-moriio-colocated.yaml", "amd-mi300x", "agg2", 4, ()),  # decode colocated
    ],
)
def test_a_pd_recipe_offers_its_aggregated_twin_on_the_same_gpus(
    recipe: str, profile: str, label: str, gpus: int, dropped: tuple[str, ...]
) -> None:
    """Operator pass op12: with a disaggregated recipe Topology offered P/D shapes only, and an aggregated job meant
    editing the roles by hand. Its `agg` preset holds the same nodes and GPUs, each worker as the role whose worker
    size it takes, less the P/D-only flags; the core plans it."""
    from srt_tui.core.spec.recipe import load_recipe as load
    from srt_tui.tui.launch.wizard import apply_preset, total_gpus

    pd, _ = load(REPO / recipe)
    loaded = load_profile(profile)
    presets = presets_for(pd, loaded)
    agg = presets[-1]
    before, _ = safe_prepare(pd, loaded, None)
    assert before is not None
    assert (
        agg.label == label and agg.note == f"{before.plan.nodes} node{'s' if before.plan.nodes > 1 else ''} · same GPUs"
    )
    applied, problems = apply_preset(pd, agg, loaded)
    assert applied is not None and not problems and list(applied.roles) == ["agg"]
    assert applied.roles["agg"].gpus == gpus and not any(k in applied.roles["agg"].args for k in dropped)
    after, found = safe_prepare(applied, loaded, None)
    assert after is not None, found
    assert (after.plan.topology, after.plan.nodes, total_gpus(after)) == (label, before.plan.nodes, total_gpus(before))
