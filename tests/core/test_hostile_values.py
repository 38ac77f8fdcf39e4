"""Nothing a recipe or profile says can change what a `#SBATCH` line, an srun option, a pyxis flag or an
`export` means: every hostile value is refused at `dry-run` with its file, line and field and a fix.

Each case is one small recipe (or profile) whose hostile line is marked `# <-`; the real `srt-tui
dry-run` runs in-process (so a hundred cases stay fast) and must exit 2 with `file:line: field:` in
its one error line and no traceback. A few cases also run as a real process, with a memory limit.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from srt_tui.cli.main import main
from srt_tui.core.api import prepare, prepare_job
from srt_tui.core.errors import ConfigError
from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import Recipe, load_recipe
from tests.core.core_helpers import PROFILES_DIR, REPO

MODEL = "model:\n  path: /models/m\n"
ROLES = """roles:
  prefill:
    nodes: 1
    workers: 1
    args: {tp-size: 8}
  decode:
    nodes: 1
    workers: 1
    args: {tp-size: 8}
"""


@dataclass(frozen=True)
class Case:
    """A recipe (or, with `profile`, a profile) holding one hostile value on the line marked `# <-`."""

    id: str
    text: str  # top-level YAML lines; `model:` and `roles:` are added when the case does not write them
    field: str  # the field the error names
    profile: bool = False


def _recipe_text(case: Case) -> str:
    head = "schema: 2\nname: hostile\nengine: mocker\n"
    text = "" if case.profile else case.text
    return (
        head
        + ("" if text.startswith("model:") or "\nmodel:" in text else MODEL)
        + ("" if "roles:" in text else ROLES)
        + text
    )


#: a small profile of this machine: the profile cases add their line to it
PROFILE = "container_runtime: none\ngpus_per_node: 8\nfallback_launcher: local\n"


def _profile_text(case: Case) -> str:
    return PROFILE + (case.text if case.profile else "")


def _slurm(key: str, value: str) -> str:
    return f"slurm:\n  {key}: {value}  # <-\n"


def _block(section: str, key: str, value: str) -> str:
    return f"{section}:\n  {key}: {value}  # <-\n"


def _role_env(role: str, key: str, value: str) -> str:
    return ROLES.replace(f"  {role}:\n", f"  {role}:\n    env:\n      {key}: {value}  # <-\n", 1)


def _role_key(role: str, key: str, value: str) -> str:
    body = ROLES.replace(f"  {role}:\n    nodes: 1\n    workers: 1\n", f"  {role}:\n    nodes: 1\n", 1)
    if key == "nodes":
        body = ROLES.replace(f"  {role}:\n    nodes: 1\n", f"  {role}:\n", 1)
    return body.replace(f"  {role}:\n", f"  {role}:\n    {key}: {value}  # <-\n", 1)


HUGE = (("workers", 100_000), ("gpus", 10**12), ("nodes", 100_000))


def _huge(key: str, n: int) -> str:
    """Roles whose prefill asks for ``n`` of ``key`` (the line the size error points at is `prefill:`)."""
    lines = f"    workers: {n}\n" if key == "workers" else f"    workers: 1\n    {key}: {n}\n"
    return ROLES.replace("  prefill:\n    nodes: 1\n    workers: 1\n", "  prefill:  # <-\n" + lines, 1)


HOSTILE_NAMES = ['"X=1; touch PWNED; Y"', '"A B"', "A-B", '"1A"', '""', '"A.B"', '"$(id)"', '"A\\nB"', '"-u"']
CASES: list[Case] = [
    # the job's Slurm identity: one token each, a name, a time
    Case("partition-option", _slurm("partition", '"gpu --begin=now+1hour"'), "slurm.partition"),
    Case("partition-newline", _slurm("partition", '"gpu\\n#SBATCH --hold"'), "slurm.partition"),
    Case("partition-dash", _slurm("partition", '"--hold"'), "slurm.partition"),
    Case("partition-list-dash", _slurm("partition", '"gpu,--hold"'), "slurm.partition"),
    Case("partition-equals", _slurm("partition", '"gpu=x"'), "slurm.partition"),
    Case("partition-quote", _slurm("partition", "'gpu\"x'"), "slurm.partition"),
    Case("partition-tab", _slurm("partition", '"gpu\\tx"'), "slurm.partition"),
    Case("partition-cr", _slurm("partition", '"gpu\\rx"'), "slurm.partition"),
    Case("account-option", _slurm("account", '"acct --hold"'), "slurm.account"),
    Case("account-list", _slurm("account", '"acct,other"'), "slurm.account"),
    Case("account-dash", _slurm("account", '"-Aother"'), "slurm.account"),
    Case("account-backslash", _slurm("account", '"a\\\\b"'), "slurm.account"),
    Case("account-nul", _slurm("account", '"a\\0b"'), "slurm.account"),
    Case("time-option", _slurm("time_limit", '"1:00:00 --hold"'), "slurm.time_limit"),
    Case("time-word", _slurm("time_limit", "forever"), "slurm.time_limit"),
    Case("time-newline", _slurm("time_limit", '"01:00:00\\n#SBATCH --hold"'), "slurm.time_limit"),
    Case("time-negative", _slurm("time_limit", '"-1"'), "slurm.time_limit"),
    Case("time-equals", _slurm("time_limit", '"1=2"'), "slurm.time_limit"),
    # sbatch directives: option names, and values that stay one token
    Case("directive-key-space", _block("sbatch_directives", '"partition gpu"', "x"), "sbatch_directives.partition gpu"),
    Case("directive-key-dashes", _block("sbatch_directives", '"--hold"', "true"), "sbatch_directives.--hold"),
    Case("directive-key-equals", _block("sbatch_directives", '"a=b"', "c"), "sbatch_directives.a=b"),
    Case("directive-key-empty", _block("sbatch_directives", '""', "x"), "sbatch_directives"),
    Case("directive-key-newline", _block("sbatch_directives", '"hold\\nx"', "1"), "sbatch_directives"),
    Case("directive-key-semicolon", _block("sbatch_directives", '"x;y"', "1"), "sbatch_directives.x;y"),
    Case("directive-key-unicode", _block("sbatch_directives", "pärtition", "x"), "sbatch_directives.pärtition"),
    Case("directive-comment-space", _block("sbatch_directives", "comment", '"a b"'), "sbatch_directives.comment"),
    Case("directive-qos-option", _block("sbatch_directives", "qos", '"normal --hold"'), "sbatch_directives.qos"),
    Case("directive-qos-dash", _block("sbatch_directives", "qos", '"-x"'), "sbatch_directives.qos"),
    Case("directive-reservation", _block("sbatch_directives", "reservation", '"r1 r2"'), "sbatch_directives"),
    Case("directive-account", _block("sbatch_directives", "account", '"a --hold"'), "sbatch_directives.account"),
    Case("directive-partition", _block("sbatch_directives", "partition", '"p,q --x"'), "sbatch_directives.partition"),
    Case("directive-time", _block("sbatch_directives", "time", '"1:00 --begin=now"'), "sbatch_directives.time"),
    Case("directive-time-min", _block("sbatch_directives", "time-min", "soon"), "sbatch_directives.time-min"),
    Case("directive-nodes", _block("sbatch_directives", "nodes", '"2 --hold"'), "sbatch_directives.nodes"),
    Case("directive-newline", _block("sbatch_directives", "constraint", '"a\\nb"'), "sbatch_directives.constraint"),
    Case("directive-quote", _block("sbatch_directives", "mem", "'0\"'"), "sbatch_directives.mem"),
    Case("directive-output", _block("sbatch_directives", "output", '"x --hold"'), "sbatch_directives.output"),
    Case("directive-begin", _block("sbatch_directives", "begin", '"now --hold"'), "sbatch_directives.begin"),
    Case("directive-backslash", _block("sbatch_directives", "comment", '"a\\\\ b"'), "sbatch_directives.comment"),
    Case("directive-tab", _block("sbatch_directives", "gres", '"gpu:8\\t--hold"'), "sbatch_directives.gres"),
    Case("directive-list", _block("sbatch_directives", "gres", "[a, b]"), "sbatch_directives.gres"),
    Case("directive-map", _block("sbatch_directives", "gres", "{a: b}"), "sbatch_directives.gres"),
    # options naming a file Slurm opens as the user, or deciding how srt-tui submits
    *[
        Case(f"reserved-{key}", _block("sbatch_directives", key, '"/home/u/.bashrc"'), f"sbatch_directives.{key}")
        for key in ("output", "error", "input", "chdir", "open-mode", "wrap", "parsable")
    ],
    *[
        Case(f"reserved-srun-{key}", _block("srun_options", key, '"/etc:/x"'), f"srun_options.{key}")
        for key in ("output", "error", "container-mounts", "container-image", "chdir")
    ],
    # srun options: names, one line each
    Case("srun-key-space", _block("srun_options", '"cpu-bind none"', "x"), "srun_options.cpu-bind none"),
    Case("srun-key-dashes", _block("srun_options", '"--overlap"', "true"), "srun_options.--overlap"),
    Case("srun-key-equals", _block("srun_options", '"a=b"', "c"), "srun_options.a=b"),
    Case("srun-key-semicolon", _block("srun_options", '"x;touch y"', "1"), "srun_options.x;touch y"),
    Case("srun-value-newline", _block("srun_options", "cpu-bind", '"none\\n--x"'), "srun_options.cpu-bind"),
    Case("srun-value-space", _block("srun_options", "cpu-bind", '"none --overlap"'), "srun_options.cpu-bind"),
    Case("srun-value-map", _block("srun_options", "cpu-bind", "{a: b}"), "srun_options.cpu-bind"),
    # container mounts: pyxis splits at `,` and `:` with no escaping
    Case("mount-host-comma", _block("container_mounts", '"/a,/etc"', "/x"), "container_mounts./a,/etc"),
    Case("mount-dest-comma", _block("container_mounts", "/a", '"/x,/etc:/y"'), "container_mounts./a"),
    Case("mount-host-colon", _block("container_mounts", '"/a:/b"', "/x"), "container_mounts./a:/b"),
    Case("mount-dest-ro-dropped", _block("container_mounts", "/a", '"/x:rw"'), "container_mounts./a"),
    Case("mount-host-space", _block("container_mounts", '"/a b"', "/x"), "container_mounts./a b"),
    Case("mount-dest-dash", _block("container_mounts", "/a", '"-x"'), "container_mounts./a"),
    Case("mount-host-empty", _block("container_mounts", '""', "/x"), "container_mounts"),
    Case("mount-host-newline", _block("container_mounts", '"/a\\n"', "/x"), "container_mounts"),
    Case("extra-mount-comma", 'extra_mount:\n  - "/a,/etc:/x"  # <-\n', "extra_mount.0"),
    Case("extra-mount-added", 'extra_mount:\n  - "/a:/b:rw,/etc:/e"  # <-\n', "extra_mount.0"),
    Case("extra-mount-four", 'extra_mount:\n  - "/a:/b:ro:x"  # <-\n', "extra_mount.0"),
    Case("extra-mount-space", 'extra_mount:\n  - "/a b:/b"  # <-\n', "extra_mount.0"),
    Case("extra-mount-one", 'extra_mount:\n  - "/a"  # <-\n', "extra_mount.0"),
    Case("extra-mount-dash", 'extra_mount:\n  - "-v:/b"  # <-\n', "extra_mount.0"),
    # model and container paths
    Case("model-comma", 'model:\n  path: "/models/a,/etc:/etc"  # <-\n', "model.path"),
    Case("model-colon", 'model:\n  path: "/models/a:/x"  # <-\n', "model.path"),
    Case("model-space", 'model:\n  path: "/models/a b"  # <-\n', "model.path"),
    Case("model-dash", 'model:\n  path: "-x"  # <-\n', "model.path"),
    Case("model-newline", 'model:\n  path: "/m\\nx"  # <-\n', "model.path"),
    Case("model-hf-comma", 'model:\n  path: "hf:org/m,/etc:/etc"  # <-\n', "model.path"),
    Case("model-hf-empty", 'model:\n  path: "hf:"  # <-\n', "model.path"),
    Case("model-empty", 'model:\n  path: ""  # <-\n', "model.path"),
    Case("container-comma", 'model:\n  path: /m\n  container: "img,/etc:/x"  # <-\n', "model.container"),
    Case("container-space", 'model:\n  path: /m\n  container: "img --x"  # <-\n', "model.container"),
    Case("container-dash", 'model:\n  path: /m\n  container: "-img"  # <-\n', "model.container"),
    Case("frontend-image", 'frontend:\n  container_image: "a b"  # <-\n', "frontend.container_image"),
    Case("benchmark-image", 'benchmark:\n  container_image: "a,b"  # <-\n', "benchmark.container_image"),
    Case("nginx-image", 'frontend:\n  nginx_container: "nginx\\n-x"  # <-\n', "frontend.nginx_container"),
    # environment: names that are names, values that are scalars
    *[Case(f"env-name-{i}", _block("environment", name, "1"), "environment") for i, name in enumerate(HOSTILE_NAMES)],
    Case("env-value-map", _block("environment", "A", "{b: c}"), "environment.A"),
    Case("env-value-list", _block("environment", "A", "[1, 2]"), "environment.A"),
    Case("env-value-nul", _block("environment", "A", '"x\\0y"'), "environment.A"),
    Case("prefill-env-name", _role_env("prefill", '"X=1"', "1"), "roles.prefill.env"),
    Case("decode-env-name", _role_env("decode", '"A B"', "x"), "roles.decode.env"),
    Case("decode-env-map", _role_env("decode", "A", "{a: 1}"), "roles.decode.env.A"),
    Case("frontend-env-name", "frontend:\n  env:\n    A-B: x  # <-\n", "frontend.env"),
    Case("frontend-env-list", "frontend:\n  env:\n    A: [x]  # <-\n", "frontend.env.A"),
    Case("benchmark-env-name", 'benchmark:\n  env:\n    "A;B": x  # <-\n', "benchmark.env"),
    Case("benchmark-env-map", "benchmark:\n  env:\n    A: {a: b}  # <-\n", "benchmark.env.A"),
    Case(
        "exporter-env-name",
        'telemetry:\n  dcgm_exporter:\n    container_image: img\n    env: {"A B": x}  # <-\n',
        "telemetry.dcgm_exporter.env",
    ),
    # counts are integers, never booleans
    Case("workers-true", _role_key("prefill", "workers", "true"), "roles.prefill.workers"),
    Case("workers-half", _role_key("prefill", "workers", "1.5"), "roles.prefill.workers"),
    Case("workers-word", _role_key("decode", "workers", "many"), "roles.decode.workers"),
    Case("nodes-true", _role_key("decode", "nodes", "true"), "roles.decode.nodes"),
    Case("gpus-false", _role_key("prefill", "gpus", "false"), "roles.prefill.gpus"),
    Case("gpus-per-node-true", "resources:\n  gpus_per_node: true  # <-\n", "resources.gpus_per_node"),
    Case("port-true", "frontend:\n  port: true  # <-\n", "frontend.port"),
    Case("isl-true", "benchmark:\n  type: sa-bench\n  isl: true  # <-\n", "benchmark.isl"),
    Case("concurrency-true", "benchmark:\n  type: sa-bench\n  concurrencies: [true]  # <-\n", "benchmark"),
    Case("attempts-true", "health_check:\n  max_attempts: true  # <-\n", "health_check.max_attempts"),
    Case("payload-true", "infra:\n  nats_max_payload_mb: true  # <-\n", "infra.nats_max_payload_mb"),
    # sizes: bounded before anything is planned
    *[Case(f"role-{key}-huge", _huge(key, n), "roles.prefill") for key, n in HUGE],
    # a setup script stays inside srtctl's configs/
    Case("setup-parent", 'setup_script: "../../etc/x.sh"  # <-\n', "setup_script"),
    Case("setup-absolute", 'setup_script: "/tmp/x.sh"  # <-\n', "setup_script"),
    Case("setup-space", 'setup_script: "a b.sh"  # <-\n', "setup_script"),
    # a recipe names a profile; it cannot make another file the profile
    Case("profiles-path", 'profiles: ["/tmp/evil.yaml"]  # <-\n', "profiles.0"),
    Case("profiles-relative", 'profiles: ["../evil"]  # <-\n', "profiles.0"),
    Case("profiles-yaml", "profiles: [evil.yaml]  # <-\n", "profiles.0"),
    # a key written twice: YAML would keep the last silently
    Case("duplicate-top", "slurm:\n  partition: gpu\nslurm:  # <-\n  partition: other\n", "slurm"),
    Case("duplicate-nested", "slurm:\n  partition: gpu\n  partition: evil  # <-\n", "slurm.partition"),
    Case("duplicate-env", "environment:\n  A: 1\n  A: 2  # <-\n", "environment.A"),
    Case("duplicate-flow", "environment: {A: 1, A: 2}  # <-\n", "environment.A"),
    # the profile: the same rules, blamed on the profile file
    Case("profile-partition", 'default_partition: "gpu --hold"  # <-\n', "default_partition", True),
    Case("profile-account", 'default_account: "a b"  # <-\n', "default_account", True),
    Case("profile-time", 'default_time_limit: "1:00 --hold"  # <-\n', "default_time_limit", True),
    Case("profile-qos", 'default_sbatch_directives: {qos: "a --hold"}  # <-\n', "default_sbatch_directives.qos", True),
    Case("profile-directive-key", 'default_sbatch_directives: {"a b": x}  # <-\n', "default_sbatch_directives", True),
    Case("profile-secret-equals", 'secret_env: ["X=1"]  # <-\n', "secret_env.0", True),
    Case("profile-secret-space", 'secret_env: ["A B"]  # <-\n', "secret_env.0", True),
    Case("profile-mount", 'default_mounts: {"/a,/b": /x}  # <-\n', "default_mounts", True),
    Case("profile-model-path", 'model_paths:\n  m: "/m,/etc:/etc"  # <-\n', "model_paths.m", True),
    Case("profile-container", 'containers: {x: "a b"}  # <-\n', "containers.x", True),
    Case(
        "profile-exporter-env",
        'default_gpu_exporter: {container_image: img, env: {"A B": x}}  # <-\n',
        "default_gpu_exporter.env",
        True,
    ),
    Case("profile-interface", 'network_interface: "eth0; rm -rf ~"  # <-\n', "network_interface", True),
    Case("profile-srtctl-root", 'srtctl_root: "/a,/etc"  # <-\n', "srtctl_root", True),
    Case(
        "profile-output",
        "default_sbatch_directives: {error: /home/u/.bashrc}  # <-\n",
        "default_sbatch_directives",
        True,
    ),
    Case("profile-duplicate", "gpus_per_node: 4  # <-\n", "gpus_per_node", True),
    Case("profile-gpus-true", "max_nodes: true  # <-\n", "max_nodes", True),
    Case("profile-gpus-half", "max_nodes: 8.5  # <-\n", "max_nodes", True),
]


def _marked_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.endswith("# <-"))


@pytest.fixture(autouse=True)
def _own_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STATE", "OUTPUT", "CONFIG"):
        monkeypatch.setenv(f"SRT_TUI_{name}_DIR", str(tmp_path / name.lower()))


def test_the_corpus_covers_the_class() -> None:
    assert len(CASES) >= 100 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_hostile_value_is_refused_naming_file_line_and_field(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recipe, profile = tmp_path / "r.yaml", tmp_path / "p.yaml"
    recipe.write_text(_recipe_text(case))
    profile.write_text(_profile_text(case))
    blamed = profile if case.profile else recipe
    rc = main(["dry-run", "-p", str(profile), "-f", str(recipe)])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("srt-tui: error: ")]
    assert errors, err
    where = f"srt-tui: error: {blamed}:{_marked_line(blamed.read_text())}: {case.field}"
    assert any(line.startswith(where) for line in errors), (where, err)
    assert any("(fix: " in line for line in errors), err


def test_a_float_written_for_an_integer_reaches_the_engine_as_an_integer(tmp_path: Path) -> None:
    recipe = tmp_path / "r.yaml"
    roles = ROLES.replace("tp-size: 8", "tp-size: 8.0, ratio: 0.5")
    recipe.write_text("schema: 2\nname: f\nengine: mocker\nfrontend: {type: sglang}\n" + MODEL + roles)
    prep = prepare(recipe, str(PROFILES_DIR / "local.yaml"))
    command = list(prep.plan.workers[0].command)
    assert command[command.index("--tp-size") + 1] == "8"
    assert command[command.index("--ratio") + 1] == "0.5"


@pytest.mark.parametrize("topology", ["99999P1D", "9999P1D", "agg734", "1P" + "9" * 5000 + "D", "201P1D"])
def test_a_topology_larger_than_any_job_is_refused_before_it_is_planned(topology: str) -> None:
    recipe = REPO / "recipes" / "mocker" / ("mocker-agg2.yaml" if "agg" in topology else "mocker-1p1d.yaml")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    proc = subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "dry-run", "-p", "local", "-f", str(recipe), "-t", topology],
        capture_output=True,
        text=True,
        timeout=30,
        preexec_fn=limit,
        cwd=REPO,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("srt-tui: error: --topology: ") and "report this" not in proc.stderr


def test_a_model_path_variable_is_checked_once_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOSTILE_MODEL", "/models/m,/etc:/etc")
    recipe = tmp_path / "r.yaml"
    recipe.write_text("schema: 2\nname: v\nengine: mocker\nmodel:\n  path: $HOSTILE_MODEL\n  container: img\n" + ROLES)
    with pytest.raises(ConfigError, match=r"model\.path: `/models/m,/etc:/etc` cannot be a mount path"):
        prepare(recipe, "nvidia-h100")


def test_the_profile_bounds_a_topology_by_its_nodes(tmp_path: Path) -> None:
    profile = tmp_path / "small.yaml"
    profile.write_text((PROFILES_DIR / "local.yaml").read_text() + "max_nodes: 4\n")
    recipe = REPO / "recipes" / "mocker" / "mocker-1p1d.yaml"
    assert prepare(recipe, str(profile), "2P2D").plan.nodes == 4
    with pytest.raises(Exception, match="needs 5 nodes; max_nodes is 4"):
        prepare(recipe, str(profile), "3P2D")


def _sized(roles: str) -> Recipe:
    """mocker-2p1d with its roles' sizes as the Topology step writes them (its form gives every role's GPUs)."""
    recipe, _ = load_recipe(REPO / "recipes" / "mocker" / "mocker-2p1d.yaml")
    sizes = yaml.safe_load(roles)
    return recipe.model_copy(
        update={"roles": {r: s.model_copy(update=sizes.get(r, {})) for r, s in recipe.roles.items()}}
    )


def test_a_job_too_big_for_the_cluster_blames_the_role_that_is_or_the_roles_together(tmp_path: Path) -> None:
    """Operator pass (op11): mocker-2p1d with decode set to 999 nodes, on a profile of max_nodes 3, read
    `✗ roles.prefill: this job needs 1001 nodes` (the role with most GPUs was blamed). The role that alone does not
    fit is named; when none does alone, the roles together, and the fix says what each takes."""
    profile = tmp_path / "three.yaml"
    profile.write_text((PROFILES_DIR / "local.yaml").read_text() + "max_nodes: 3\n")
    loaded = load_profile(str(profile))
    with pytest.raises(ConfigError) as raised:
        prepare_job(_sized("prefill: {gpus: 4}\ndecode: {nodes: 999, gpus: 8}"), loaded)
    (problem,) = raised.value.problems
    assert (problem.field, problem.message) == ("roles.decode", "this job needs 1000 nodes; max_nodes is 3")
    assert problem.hint.startswith("decode takes 999 nodes, prefill 1; pick a smaller topology")
    with pytest.raises(ConfigError) as raised:
        prepare_job(_sized("prefill: {nodes: 2, gpus: 4}\ndecode: {nodes: 2, gpus: 8}"), loaded)
    (problem,) = raised.value.problems
    assert (problem.field, problem.message) == ("roles", "this job needs 4 nodes; max_nodes is 3")
    assert problem.hint.startswith("prefill takes 2 nodes, decode 2; pick a smaller topology")
