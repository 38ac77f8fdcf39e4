"""Turn pydantic validation errors into Problems with file, line, field path and closest valid key."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import ConfigError, Problem
from .yamlio import Located, PathKey


def _fields_at(model: type[BaseModel], path: PathKey) -> list[str]:
    """Valid field names of the (nested) model at `path`, for 'did you mean' hints."""
    current: Any = model
    for part in path:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        info = current.model_fields.get(str(part))
        if info is None:
            return []
        current = _unwrap(info.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrap(annotation: Any) -> Any:
    """Find a BaseModel inside Optional[...] / Union[...] annotations."""
    args = getattr(annotation, "__args__", None)
    if args:
        for arg in args:
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                return arg
    return annotation


def to_config_error(
    exc: ValidationError, model: type[BaseModel], src: Located, path_prefix: PathKey = ()
) -> ConfigError:
    """Convert every pydantic error into a located Problem with a fix hint."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for err in exc.errors():
        loc: PathKey = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        # pydantic adds union member tags to locations; keep only keys present in the data
        loc = tuple(p for p in loc if not (isinstance(p, str) and ("[" in p or p in {"str", "int", "bool"})))
        full = path_prefix + loc
        field = ".".join(str(p) for p in full)
        kind = err["type"]
        if kind == "extra_forbidden":
            key = str(loc[-1]) if loc else "?"
            options = _fields_at(model, loc[:-1])
            close = difflib.get_close_matches(key, options, n=1, cutoff=0.5)
            hint = (
                f"did you mean `{close[0]}`?"
                if close
                else (f"valid keys here: {', '.join(options)}" if options else "remove it")
            )
            message = f"unknown key `{key}`"
        elif kind == "missing":
            message, hint = "required key is missing", f"add `{loc[-1] if loc else field}:`"
        else:
            message = err["msg"]
            got = err.get("input")
            if not isinstance(got, (dict, list)):
                message += f" (got {got!r})"
            hint = ""
        text = f"{field}|{message}"
        if text in seen:
            continue
        seen.add(text)
        problems.append(Problem(field=field, message=message, hint=hint, file=src.file, line=src.line_of(full)))
    return ConfigError(problems)
