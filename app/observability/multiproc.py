"""Where the worker processes of ``python -m app serve --workers N`` keep
their metrics (prometheus-client's multiprocess mode). Nothing here imports
prometheus-client: the variable must be set before it is first imported in
a worker (it decides its mode at import time)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def multiprocess_dir() -> str | None:
    """The multiprocess directory, if this process records into one."""
    return os.environ.get(MULTIPROC_ENV) or None


def prepare_multiprocess_dir() -> tuple[str, bool]:
    """Called by ``serve`` before starting several workers (before any metric
    exists): the directory the workers share, and whether ``serve`` made it
    (and so removes it at the end). An operator's own ``PROMETHEUS_MULTIPROC_DIR``
    is used as given, emptied of the previous run's ``*.db`` files."""
    given = multiprocess_dir()
    if given is not None:
        path = Path(given)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink(missing_ok=True)
        return str(path), False
    made = tempfile.mkdtemp(prefix="dicecup-metrics-")
    os.environ[MULTIPROC_ENV] = made
    return made, True


def remove_multiprocess_dir(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
