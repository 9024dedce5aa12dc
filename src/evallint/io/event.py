"""What the GitHub runner's event file says of a pull request: its base and head commits."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from evallint.errors import EvallintError

PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})
MAX_EVENT = 32 * 1024 * 1024  # GitHub's event payloads are far smaller; /dev/zero is not one


def pull_request_sha(
    environ: Mapping[str, str], side: str, *, required: bool = False
) -> str | None:
    """`pull_request.<side>.sha` ("base" or "head") from the GitHub event file the runner
    writes: the exact commit, not a branch name, nor the temporary merge commit.

    `required`: in a pull request event (GITHUB_EVENT_NAME) the sha must be there: an event
    file that is missing, too large, not JSON, or whose sha is absent, null or malformed is an
    error, since any other base would compare the pull request with the wrong commit."""
    path = environ.get("GITHUB_EVENT_PATH")
    strict = required and environ.get("GITHUB_EVENT_NAME") in PULL_REQUEST_EVENTS
    try:
        if not path:
            raise ValueError("GITHUB_EVENT_PATH is not set")
        with open(path, "rb") as f:
            raw = f.read(MAX_EVENT + 1)
        if len(raw) > MAX_EVENT:
            raise ValueError(f"it is larger than {MAX_EVENT // 2**20} MiB")
        sha = json.loads(raw)["pull_request"][side]["sha"]
        if not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", sha)):
            raise ValueError(f"pull_request.{side}.sha is {json.dumps(sha)[:80]}, not a commit id")
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        if strict:
            why: object = exc.strerror if isinstance(exc, OSError) else exc
            if isinstance(exc, KeyError | TypeError | RecursionError):
                why = f"it holds no pull_request.{side}.sha"
            elif isinstance(exc, json.JSONDecodeError):
                why = "it is not JSON"
            raise EvallintError(
                f"the pull request's {side} commit cannot be read from the event file "
                f"(GITHUB_EVENT_PATH): {why}; pass --diff BASE to name it"
            ) from None
        return None
    return sha
