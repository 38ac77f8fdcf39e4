"""Values that reach a `#SBATCH` line, an `srun` option, a pyxis flag or an `export`: checked on load.

A recipe may come from someone else (DESIGN principle 10), so nothing it says may change what such a
line means: a space splits `#SBATCH --partition=gpu --hold` into two options, a `,` or `:` adds a pyxis
`--container-mounts` entry (pyxis has no escaping), `X=1; Y` is no variable name. Each check here is an
annotated type the recipe and profile models use, so a bad value is refused with its file, line and
field and a fix (the `unsafe_value` error kind carries the fix), before any plan is built.
"""

from __future__ import annotations

import re
import types
import typing
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator
from pydantic_core import PydanticCustomError

#: the error kind of a refused value; its context holds the fix (`model_errors` reads it)
UNSAFE = "unsafe_value"

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OPTION_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_SLURM_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")
#: Slurm's time formats: minutes, m:s, h:m:s, d-h, d-h:m, d-h:m:s, or no limit
_SLURM_TIME = re.compile(r"^(\d+(:\d{1,2}){0,2}|\d+-\d{1,2}(:\d{1,2}){0,2}|UNLIMITED|unlimited|INFINITE|infinite)$")
_PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}$")
_INTERFACE = re.compile(r"^[A-Za-z0-9_.@:+-]{1,15}$")
_SETUP_SCRIPT = re.compile(r"^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*(/[A-Za-z0-9_+-][A-Za-z0-9_.+-]*)*$")

#: sbatch directives naming a Slurm object (a `,` list where Slurm takes one) and ones holding a time
NAME_DIRECTIVES = frozenset({"account", "partition", "qos", "reservation", "clusters", "wckey"})
LIST_DIRECTIVES = frozenset({"partition", "qos", "reservation", "clusters"})
TIME_DIRECTIVES = frozenset({"time", "time-min"})


#: options whose value is a file Slurm opens as the user, or that decide how srt-tui submits: a recipe may
#: not set them (a shared recipe's `error: ~/.bashrc` would overwrite the user's file with job output)
_FILE_OPTIONS = {
    "output": "the job's output goes to its job directory (logs/)",
    "error": "the job's output goes to its job directory (logs/)",
    "input": "a job reads no standard input",
    "chdir": "the job runs in its job directory",
    "open-mode": "the job's output goes to its job directory (logs/)",
}
RESERVED_DIRECTIVES = _FILE_OPTIONS | {
    "wrap": "srt-tui submits its own launch script",
    "parsable": "srt-tui reads sbatch's answer itself",
}
RESERVED_SRUN = _FILE_OPTIONS | {
    "container-mounts": "mounts come from container_mounts / extra_mount, where each path is checked",
    "container-image": "the image comes from model.container",
}


def refuse(message: str, fix: str, at: str | None = None) -> PydanticCustomError:
    """A located refusal: `message` says what the value would do, `fix` how to write it instead;
    `at`: the key inside the field that holds the value (a directive of `sbatch_directives`)."""
    context: dict[str, str] = {"fix": fix} | ({"at": at} if at is not None else {}) | {"why": message}
    return PydanticCustomError(UNSAFE, "{why}", context)


def _control(value: str) -> str | None:
    """What a control or odd character in `value` does to a line, or None when there is none."""
    for ch in value:
        if ch in "\n\r":
            return "a line break ends the line and starts another"
        if not ch.isprintable() and not ch.isspace():
            return f"the control character {ch!r} is not text"
    return None


_SPLITS = {
    ",": "`,` splits {where}",
    ":": "`:` splits {where}",
    "=": "`=` is part of no name in {where}",
    '"': 'sbatch reads `"` in {where} as quoting',
    "'": "`'` is quoting, not part of a value in {where}",
    "\\": "sbatch reads `\\` in {where} as an escape",
}


def _problem(value: str, splitters: str, where: str) -> str | None:
    """Why `value` would change the meaning of `where` (None when it would not)."""
    control = _control(value)
    if control:
        return control
    if any(c.isspace() for c in value):
        return f"a space splits {where} into two"
    for ch in splitters:
        if ch in value:
            return _SPLITS[ch].format(where=where)
    if value.startswith("-"):
        return f"a leading `-` reads as an option in {where}"
    return None


def check_env_name(name: str) -> str:
    """An environment variable name: letters, digits and `_`, not starting with a digit."""
    if not ENV_NAME.match(name):
        raise refuse(
            f"`{name}` is not an environment variable name (letters, digits and _, not starting with a digit)",
            "rename it, e.g. MY_VAR; a value goes after the `:`, not in the name",
        )
    return name


def env_value(value: Any) -> Any:
    """An environment value: a scalar (numbers and booleans become text, null the empty string)."""
    if isinstance(value, (dict, list, tuple, set)):
        kind = "a mapping" if isinstance(value, dict) else "a list"
        raise refuse(
            f"an environment value must be text, a number or a boolean, not {kind}",
            "write the value as one string (quote JSON if the program expects JSON)",
        )
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) else str(value)


def check_env_text(value: str) -> str:
    """An environment value: no NUL (the kernel cannot pass one)."""
    if "\0" in value:
        raise refuse("an environment value cannot hold a NUL character", "remove it")
    return value


def option_key_problem(key: str) -> tuple[str, str] | None:
    """(what is wrong, the fix) for an sbatch directive or srun option name, None for `cpus-per-task`."""
    if key.startswith("-") and _OPTION_KEY.match(key.lstrip("-")):
        return "an option name is written without its dashes", f"write `{key.lstrip('-')}`"  # the field names it
    if not _OPTION_KEY.match(key):
        return (
            f"`{key}` is not a Slurm option name (letters, digits, `-`; no spaces, `=` or quotes)",
            "write one option name per key, e.g. `cpus-per-task`, with its value after the `:`",
        )
    return None


def check_option_key(key: str) -> str:
    """An sbatch directive or srun option name: `partition`, `cpus-per-task` (no dashes, `=` or spaces)."""
    found = option_key_problem(key)
    if found:
        raise refuse(*found)
    return key


def sbatch_line_problem(key: str, value: str | None) -> tuple[str, str] | None:
    """(what is wrong, the fix) for the line `#SBATCH --key[=value]`, None when it means what it says
    (the renderer's last check: a value edited in memory never passed the models)."""
    return option_key_problem(key) or (directive_problem(key, value) if value is not None else None)


def directive_problem(key: str, value: str) -> tuple[str, str] | None:
    """(what is wrong, the fix) for `#SBATCH --key=value`, or None when the line means what it says."""
    if key in TIME_DIRECTIVES:
        if not _SLURM_TIME.match(value):
            return (
                f"`{value}` is not a Slurm time limit",
                "write minutes, HH:MM:SS or D-HH:MM:SS, e.g. 01:30:00",
            )
        return None
    if key in NAME_DIRECTIVES:
        parts = value.split(",") if key in LIST_DIRECTIVES else [value]
        if not all(_SLURM_NAME.match(p) for p in parts):
            why = _problem(value, "=\"'\\", "the #SBATCH line") or (
                "`,` would name a second one" if "," in value else "it is not a Slurm name"
            )
            listed = ", or several joined by `,`" if key in LIST_DIRECTIVES else ""
            return (
                f"`{value}` is not one {key} name: {why}",
                f"write the {key} name alone (letters, digits, `_ . + -`){listed}; "
                "an extra option goes in sbatch_directives as its own key",
            )
        return None
    found = _problem(value, "\"'\\", "the #SBATCH line")
    if found:
        return (f"`{value}`: {found}", "write the value alone; an extra option goes in as its own key")
    return None


def _reserved(key: str, table: dict[str, str], where: str) -> None:
    if key in table:
        raise refuse(f"`{key}` is srt-tui's to set: {table[key]}", f"remove it from {where}", at=key)


def check_directives(value: dict[str, Any]) -> dict[str, Any]:
    """Every `key: value` of an sbatch directive mapping makes one `#SBATCH --key=value` line that means
    what it says (the key's own rule: a name, a time, or one token)."""
    for key, item in value.items():
        check_option_key(key)
        _reserved(key, RESERVED_DIRECTIVES, "sbatch_directives")
        if item is None or isinstance(item, bool) or item == "":
            continue
        found = directive_problem(key, str(item))
        if found:
            raise refuse(*found, at=key)
    return value


def check_srun_options(value: dict[str, Any]) -> dict[str, Any]:
    """srun options: option names, each value one token (srtctl passes `--key=value` as one argument;
    a space there is a second option written into the first's value)."""
    for key, item in value.items():
        check_option_key(key)
        _reserved(key, RESERVED_SRUN, "srun_options")
        if not isinstance(item, str):
            continue
        why = _control(item) or (
            "a space makes a second option of the rest" if any(c.isspace() for c in item) else None
        )
        if why:
            raise refuse(f"`{item}`: {why}", "write the value alone; another option goes in as its own key", at=key)
    return value


def slurm_name(kind: str) -> Any:
    """An annotated str for an account, partition or QOS value (`kind` is its directive name)."""

    def check(value: str) -> str:
        found = directive_problem(kind, value)
        if found:
            raise refuse(*found)
        return value

    return AfterValidator(check)


def _check_time(value: str) -> str:
    found = directive_problem("time", value)
    if found:
        raise refuse(*found)
    return value


def directive_value(value: Any) -> Any:
    """A generic sbatch/srun value (`true`/`false`/null keep their meaning); a string must be one token."""
    if isinstance(value, str):
        why = _control(value)
        if why:
            raise refuse(f"`{value!r}`: {why}", "write the value on one line")
    return value


def check_srun_value(value: Any) -> Any:
    """An srun option's value: one argument of the srun command line, on one line."""
    return directive_value(value)


def mount_problem(value: str) -> tuple[str, str] | None:
    """(what is wrong, the fix) for one side of a pyxis mount (split at `,` and `:`, no escaping)."""
    why = _problem(value, ",:", "a pyxis --container-mounts entry") if value else "it is empty"
    if why:
        return (
            f"`{value}` cannot be a mount path: {why}",
            "use a path without `,` `:` or spaces (a symbolic link without them works), or mount its parent",
        )
    return None


def check_mount_path(value: str) -> str:
    """One side of a container mount: pyxis splits `--container-mounts` at `,` and `:` with no escaping."""
    found = mount_problem(value)
    if found:
        raise refuse(*found)
    return value


def check_model_path(value: str) -> str:
    """A model path or alias: mounted by pyxis (see `check_mount_path`); `hf:` names a hub model."""
    if value.startswith("hf:"):
        rest = value[3:]
        why = _problem(rest, ",", "the model name") if rest else "it names no model"
        if why:
            raise refuse(f"`{value}` cannot be a model: {why}", "write hf:<org>/<model>")
        return value
    return check_mount_path(value)


def check_image(value: str) -> str:
    """A container image (`nvcr.io#org/image:tag`, a .sqsh path, an alias): one pyxis argument."""
    why = _problem(value, ",", "the pyxis --container-image argument") if value else "it is empty"
    if why:
        raise refuse(f"`{value}` cannot be a container image: {why}", "write the image name or .sqsh path alone")
    return value


def check_extra_mount(value: str) -> str:
    """`host:container[:ro|rw]`, each path a mount path."""
    parts = value.split(":")
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] not in ("ro", "rw")):
        raise refuse(f"`{value}` is not host:container[:ro]", "write e.g. /data:/data:ro (no other `:`)")
    for part in parts[:2]:
        check_mount_path(part)
    return value


def check_setup_script(value: str) -> str:
    """A script name under srtctl's configs/ directory: a relative path that stays there."""
    if not _SETUP_SCRIPT.match(value) or ".." in value.split("/"):
        raise refuse(
            f"`{value}` is not a file name under configs/",
            "write the script's name relative to srtctl's configs/ directory, e.g. rebuild-deepep.sh",
        )
    return value


def check_profile_name(value: str) -> str:
    """A recipe's `profiles:` entry is a profile name: a path would make a file of anyone's the profile
    (whose `default_bash_preamble` runs in every step), so a recipe names, and the user's own dirs hold."""
    if not _PROFILE_NAME.match(value) or value.endswith((".yaml", ".yml")):
        raise refuse(
            f"`{value}` is not a profile name: a recipe names a profile, it cannot point at a file",
            "write the name of a profile in your profiles directory (e.g. local), or pass -p PATH yourself",
        )
    return value


def check_interface(value: str) -> str:
    """A network interface name as Linux spells one (`eth0`, `enP6p3s0f0np0`, `ib0`)."""
    if not _INTERFACE.match(value):
        raise refuse(f"`{value}` is not a network interface name", "write the NIC's name as `ip link` shows it")
    return value


def integral_floats(value: Any) -> Any:
    """Engine args with `8.0` written for 8 normalised to the integer (an engine's int parser refuses `8.0`)."""

    def one(v: Any) -> Any:
        return int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2**63 else v

    if isinstance(value, dict):
        return {k: [one(x) for x in v] if isinstance(v, list) else one(v) for k, v in value.items()}
    return value


def no_bool_for_number(annotation: Any, value: Any) -> bool:
    """True when `value` holds a boolean where `annotation` takes a number but not a boolean
    (YAML's `true` would otherwise be read as 1), at the top level or as a list item."""
    if isinstance(value, bool):
        return _takes_number_not_bool(annotation)
    if isinstance(value, list) and any(isinstance(v, bool) for v in value):
        return any(_takes_number_not_bool(a) for a in _list_items(annotation))
    return False


def _members(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _members(typing.get_args(annotation)[0])
    if origin is typing.Union or isinstance(annotation, types.UnionType):
        return [m for a in typing.get_args(annotation) for m in _members(a)]
    return [annotation]


def _takes_number_not_bool(annotation: Any) -> bool:
    members = _members(annotation)
    return bool({int, float} & set(members)) and bool not in members


def _list_items(annotation: Any) -> list[Any]:
    return [typing.get_args(m)[0] for m in _members(annotation) if typing.get_origin(m) is list and typing.get_args(m)]


EnvName = Annotated[str, AfterValidator(check_env_name)]
_SCALAR = str | int | float | bool | None
EnvText = Annotated[str, BeforeValidator(env_value, json_schema_input_type=_SCALAR), AfterValidator(check_env_text)]
EnvMap = dict[EnvName, EnvText]
OptionKey = Annotated[str, AfterValidator(check_option_key)]
DirectiveValue = Annotated[str | int | bool | None, BeforeValidator(directive_value)]
SrunValue = Annotated[str | int | bool | None, BeforeValidator(check_srun_value)]
MountPath = Annotated[str, AfterValidator(check_mount_path)]
ModelPath = Annotated[str, AfterValidator(check_model_path)]
Image = Annotated[str, AfterValidator(check_image)]
ExtraMount = Annotated[str, AfterValidator(check_extra_mount)]
SlurmTime = Annotated[str, AfterValidator(_check_time)]
Account = Annotated[str, slurm_name("account")]
Partition = Annotated[str, slurm_name("partition")]
SetupScript = Annotated[str, AfterValidator(check_setup_script)]
ProfileName = Annotated[str, AfterValidator(check_profile_name)]
Interface = Annotated[str, AfterValidator(check_interface)]
