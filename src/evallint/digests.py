"""SHA digests of small data without importing hashlib in a run that hashes little.

hashlib loads OpenSSL's binding, about 2 ms of a one-file run and 3.6 MB of resident memory
(libcrypto's pages); CPython's own SHA modules load in a tenth of that and give the same
digests. OpenSSL hashes five times faster, though, so once a process has hashed `_SMALL` bytes
of files (a cold run over a tree) it takes hashlib: past that its import has paid for itself.
A finding's fingerprint is another matter (`text_sha256_hex`): a short text, where the two
differ by half a microsecond, so a run with a thousand findings never loads libcrypto for them.
"""

from __future__ import annotations

import sys
from typing import Any

_SMALL = 256 * 1024
_hashed = 0


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 of `data`, as `hashlib.sha256(data).hexdigest()` gives it."""
    return str(_hash("sha256", data).hexdigest())


def text_sha256_hex(data: bytes) -> str:
    """`sha256_hex` of a short text (a fingerprint): by the builtin module where there is
    one, and not counted towards taking hashlib."""
    own = _builtin("sha256")
    return str(own(data).hexdigest()) if own is not None else sha256_hex(data)


def text_sha256(data: bytes) -> Any:
    """`text_sha256_hex`'s hash object, fed with `data`, to copy and feed more."""
    own = _builtin("sha256")
    return own(data) if own is not None else _hash("sha256", data)


def sha1_hex(data: bytes) -> str:
    """The hex SHA-1 of `data` (git's blob ids; not for security)."""
    return str(_hash("sha1", data).hexdigest())


def _hash(name: str, data: bytes) -> Any:
    global _hashed
    _hashed += len(data)
    if _hashed <= _SMALL:
        own = _builtin(name)
        if own is not None:
            return own(data)
    import hashlib

    return getattr(hashlib, name)(data, usedforsecurity=False)


def _builtin(name: str) -> Any:
    # Python 3.12 merged _sha256 into _sha2 (looking for a module that is not there costs a
    # search of every path entry); a build may have neither.
    merged = name == "sha256" and sys.version_info >= (3, 12)
    try:
        return getattr(__import__("_sha2" if merged else f"_{name}"), name)
    except (ImportError, AttributeError):
        return None
