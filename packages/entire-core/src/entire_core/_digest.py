"""SHA-256 for the hook path without ``import hashlib``.

``hashlib`` loads OpenSSL's ``_hashlib`` and ``_blake2`` on import, several milliseconds of a hook's
start-up, to compute a digest that names a directory or a scratch file. CPython's own SHA-256 module
(``_sha2`` since 3.12, ``_sha256`` before) computes the same digest and loads in a fraction of that;
where it is not built, ``hashlib`` is used. The digests, and so the names on disk, are the same.
"""

from __future__ import annotations

import sys


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` as 64 lowercase hex digits, as ``hashlib.sha256(data).hexdigest()``."""
    # Named at run time: which C module holds it depends on the Python version (3.11 has only _sha256),
    # and a static import of the other would read as a missing requirement to the release checks.
    builtin = "_sha2" if sys.version_info >= (3, 12) else "_sha256"
    try:
        sha256 = __import__(builtin).sha256
    except (ImportError, AttributeError):
        from hashlib import sha256
    digest: str = sha256(data).hexdigest()
    return digest
