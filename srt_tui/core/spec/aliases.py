"""How a recipe's container is named: an alias of the profile's `containers`, or an image written out (a path, a
registry URI, a `.sqsh` file). Read by resolve (which uses it) and by the recipe list (which checks a row's fit to
a profile with it, no model loaded)."""

from __future__ import annotations

import re
from collections.abc import Collection

#: a container written out rather than named by alias: a path, `registry/image:tag`, `docker://…`, a `.sqsh` file
CONTAINER_LITERAL = re.compile(r"^(/|\./|\.\./|~)|[:/]|\.sqsh$")


def container_known(value: str, aliases: Collection[str]) -> bool:
    """Whether ``value`` names an image the profile knows (one of its ``aliases``) or is one written out; a `$VAR`
    is known only once the job runs, and counts as written out."""
    return value in aliases or value.startswith("$") or CONTAINER_LITERAL.search(value) is not None
