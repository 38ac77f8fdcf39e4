"""Turn pydantic validation errors into Problems with file, line, field path and closest valid key."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ValidationError

from srt_tui.core.errors import ConfigError, Problem, did_you_mean
from srt_tui.core.spec.slurm_values import UNSAFE
from srt_tui.core.spec.yamlio import Located, PathKey


def _fields_at(model: type[BaseModel], path: PathKey) -> list[str]:
    """Valid field names of the (nested) model at `path`, for 'did you mean' hints."""
    current: Any = model
    for part in path:
        if getattr(current, "__origin__", None) is dict:
            current = _unwrap(current.__args__[1])  # `roles.agg`: the key selects a value of the dict
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        info = current.model_fields.get(str(part))
        if info is None:
            return []
        current = _unwrap(info.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [info.alias or name for name, info in current.model_fields.items()]  # as a file spells them
    return []


def _unwrap(annotation: Any) -> Any:
    """Find a BaseModel inside Optional[...] / Union[...] annotations (dicts are kept for `_fields_at`)."""
    args = getattr(annotation, "__args__", None)
    if args and getattr(annotation, "__origin__", None) is not dict:
        for arg in args:
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                return arg
    return annotation


# pydantic's union-member tags in error locations (`int`, `literal['colocate']`, `list[int]` ...)
_TAGS = frozenset({"str", "int", "float", "bool", "list", "dict", "none", "nullable", "union"})


def _is_tag(part: str | int) -> bool:
    return isinstance(part, str) and (part.startswith("function-") or "[" in part or part in _TAGS)


def _expected(err: Any) -> str:
    """What a value should look like, from a pydantic error (for the fix hint)."""
    kind, ctx = str(err["type"]), err.get("ctx") or {}
    if kind.startswith("int_"):
        return "an integer"
    if kind.startswith("float_"):
        return "a number"
    if kind.startswith("bool_"):
        return "true or false"
    if kind.startswith("string_") and kind != "string_pattern_mismatch":
        return "a string" + (f" of at most {ctx['max_length']} characters" if "max_length" in ctx else "")
    if kind == "string_pattern_mismatch":
        return f"a value matching {ctx.get('pattern')}"
    if kind in ("literal_error", "enum"):
        return f"one of {ctx.get('expected')}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "a mapping of `key: value` lines"
    if kind in ("list_type", "tuple_type"):
        return "a list"
    for key, word in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
        if key in ctx:
            return f"a value {word} {ctx[key]}"
    return "a valid value (see `srt-tui schema`)"


def _branches_taken(errors: list[Any]) -> list[Any]:
    """The errors less those of a union's branches that refused the value's very type, when another branch of that
    union took it and failed further in: `concurrencies: [2, x]` (`list[int] | str`) is a list with a bad item,
    and `should be a valid string` beside the item's error would only mislead."""
    deeper: set[PathKey] = set()
    for err in errors:
        raw = err["loc"]
        for i, part in enumerate(raw):
            if _is_tag(part) and not all(_is_tag(p) for p in raw[i + 1 :]):
                deeper.add(tuple(p for p in raw[:i] if not _is_tag(p)))
    return [
        e
        for e in errors
        if not (e["loc"] and _is_tag(e["loc"][-1]) and tuple(p for p in e["loc"] if not _is_tag(p)) in deeper)
    ]


def to_config_error(
    exc: ValidationError, model: type[BaseModel], src: Located, path_prefix: PathKey = ()
) -> ConfigError:
    """Convert pydantic errors into located Problems with a fix hint: one per field (union members merged)."""
    problems: list[Problem] = []
    by_field: dict[str, list[Any]] = {}
    locs: dict[str, PathKey] = {}
    for err in _branches_taken(exc.errors()):
        loc: PathKey = tuple(p for p in err["loc"] if not _is_tag(p))
        field = ".".join(str(p) for p in path_prefix + loc)
        by_field.setdefault(field, []).append(err)
        locs[field] = loc
    for field, errs in by_field.items():
        loc = locs[field]
        full = path_prefix + loc
        kind = errs[0]["type"]
        if kind == "extra_forbidden":
            key = str(loc[-1]) if loc else "?"
            options = _fields_at(model, loc[:-1])
            hint = did_you_mean(key, options, cutoff=0.5) or (
                f"valid keys here: {', '.join(options)}" if options else "remove it"
            )
            message = f"unknown key `{key}`"
        elif kind == UNSAFE:  # a value that would change a Slurm, pyxis or env line: its own reason and fix
            ctx = errs[0].get("ctx") or {}
            message, hint = str(ctx.get("why", errs[0]["msg"])), str(ctx.get("fix", ""))
            if ctx.get("at") is not None:
                full = (*full, str(ctx["at"]))
                field = ".".join(str(p) for p in full)
        elif kind == "value_error":  # a validator's own reason, e.g. a fork key srt-tui does not run
            message = str(errs[0]["msg"]).removeprefix("Value error, ")
            named = re.match(r"`([A-Za-z_][\w-]*)`", message)
            if named and src.lines.get((*full, named.group(1))) is not None:
                full = (*full, named.group(1))
                field = ".".join(str(p) for p in full)
                message = message.removeprefix(f"{named.group(0)}: ")  # the key is the field's now: said once
            hint = "change or remove it as the message says (`srt-tui schema recipe` lists every key)"
        elif kind == "missing":
            message, hint = "required key is missing", f"add `{loc[-1] if loc else field}:`"
        else:
            message = errs[0]["msg"] if len(errs) == 1 else "invalid value"
            got = errs[0].get("input")
            if not isinstance(got, (dict, list)):
                message += f" (got {got!r})"
            expected = list(dict.fromkeys(_expected(e) for e in errs))
            hint = "use " + " or ".join(expected)
            if isinstance(got, str):  # a closed set's value, alone or in a union (`nodes: colocat`): the nearest
                choices = [c for e in errs if e["type"] == "literal_error" for c in _choices(e)]
                hint = did_you_mean(got, choices, cutoff=0.5) or hint
        problems.append(Problem(field=field, message=message, hint=hint, file=src.file, line=src.line_of(full)))
    return ConfigError(by_line(problems))


def _choices(err: Any) -> list[str]:
    """The values a pydantic `literal_error` (a `Literal`, or a registered name through `one_of`) accepts."""
    return re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))


def by_line(problems: list[Problem]) -> list[Problem]:
    """Problems in the order of the file (those without a line last), as an editor walks them."""
    return sorted(problems, key=lambda p: (p.line is None, p.line or 0))
