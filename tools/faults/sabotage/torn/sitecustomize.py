"""Sabotage for ``make faults --pythonpath``: atomic_write writes in place, in two halves (a torn file when killed)."""

import os

from entire_core import faults, fsutil


def torn_write(
    path: str, data: bytes, *, mode: int | None = None, durable: bool = True, fsync: bool = True
) -> str:
    target = os.path.realpath(path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as f:
        f.write(data[: len(data) // 2])
        f.flush()
        faults.reached("write.written", target)
        f.write(data[len(data) // 2 :])
    return target


fsutil.atomic_write = torn_write
