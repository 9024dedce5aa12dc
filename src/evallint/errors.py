"""The one exception users see: a tool failure (bad usage, config or git state), exit code 2."""

from __future__ import annotations


class EvallintError(Exception):
    """A failure of the run itself, not a problem in a linted file."""
