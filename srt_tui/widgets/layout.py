"""The terminal width from which every view switches to its wide layout (more columns, trailers)."""

from __future__ import annotations

#: 80-column terminals get the narrow layouts; 110 fits the jobs table's and worker table's wide columns
WIDE = 110
