"""What the profile files on disk look like now, cheaply: each file's path, modification time and size.

The Profile step lists the profiles once; a file edited (or added, or removed) afterwards was shown as it was until
`r`. Comparing this stamp, taken when the list is read and again when the step is shown again, says whether to
read them again without parsing a file. It stats files: call it off the UI thread (a shared filesystem may hang).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from srt_tui.core.paths import profile_dirs

#: one file's (path, st_mtime_ns, st_size); a file gone reads (path, -1, -1)
FileStamp = tuple[str, int, int]


def profile_stamp(extra: Iterable[Path] = ()) -> tuple[FileStamp, ...]:
    """The stamp of every profile file in the profile folders, and of ``extra`` (a `-p FILE`, a discovered
    srtslurm.yaml): a file changed, added or removed changes it."""
    paths = set(extra)
    for _source, folder in profile_dirs():
        if folder.is_dir():
            paths.update(folder.glob("*.y*ml"))
    return tuple(_stamp(path) for path in sorted(paths))


def _stamp(path: Path) -> FileStamp:
    try:
        st = path.stat()
    except OSError:
        return (str(path), -1, -1)
    return (str(path), st.st_mtime_ns, st.st_size)
