"""Strategy tables on disk: one ``.npy`` file per variant, named by a digest
of the code that computes it (the solver's, and its own rule set's module),
so a change to the rules or the solver makes a new file instead of reusing a
stale one, while adding or changing another rule set leaves a variant's file
alone. Computing a missing table takes a file lock, so replicas and test
processes sharing a directory compute it once.

Tables are written readable by everyone (files 0644, the directories made
for them 0755), whatever the umask of the process that solves them: tables
solved by one user (a build step, ``python -m app.strategy solve all``) are
served by another. A table already on disk is read without the lock, so the
serving user needs no write access to the directory."""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import os
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
from filelock import FileLock

from app.rules import get_ruleset

from .model import Variant
from .solver import FloatArray, Solver

_SOURCES = (
    "strategy/solver.py",
    "strategy/model.py",
    "strategy/multisets.py",
    "rules/ruleset.py",
)


@cache
def code_digest(ruleset: str) -> str:
    """What one rule set's tables depend on: the solver's source, the rule
    set interface's and the rule set's own module."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for name in _SOURCES:
        digest.update((root / name).read_bytes())
    module = inspect.getsourcefile(type(get_ruleset(ruleset)))
    assert module is not None
    digest.update(Path(module).read_bytes())
    return digest.hexdigest()[:12]


FILE_MODE = 0o644
DIR_MODE = 0o755


def make_dirs(directory: Path) -> None:
    """``directory`` and its missing parents, each one made here set to
    :data:`DIR_MODE` (``mkdir``'s mode is cut by the umask; ``chmod`` is not).
    Directories that exist are left as their owner set them."""
    missing = []
    for path in (directory, *directory.parents):
        if path.exists():
            break
        missing.append(path)
    directory.mkdir(parents=True, exist_ok=True)
    for path in missing:
        os.chmod(path, DIR_MODE)


def write_table(path: Path, table: FloatArray) -> None:
    """Write ``table`` to ``path`` atomically (readers never see half a file), mode :data:`FILE_MODE`."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npy.part")  # mkstemp makes it 0600
    try:
        os.fchmod(handle, FILE_MODE)
        with os.fdopen(handle, "wb") as out:
            np.save(out, table)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def table_path(directory: Path, variant: Variant) -> Path:
    return directory / f"{variant.key}-{code_digest(variant.ruleset)}.npy"


def load(directory: Path, variant: Variant) -> FloatArray | None:
    """The variant's table if it is on disk."""
    path = table_path(directory, variant)
    if not path.exists():
        return None
    table: FloatArray = np.load(path, mmap_mode="r")
    return table


def ensure(
    directory: Path,
    variant: Variant,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[FloatArray, bool]:
    """The variant's table, computed first if missing (once per machine, under
    a file lock); also whether this call computed it."""
    table = load(directory, variant)
    if table is not None:  # no lock needed: tables are replaced whole
        return table, False
    make_dirs(directory)
    path = table_path(directory, variant)
    with FileLock(str(path) + ".lock", mode=FILE_MODE):
        table = load(directory, variant)
        if table is not None:
            return table, False
        table = Solver(variant, workers=workers).solve(progress)
        write_table(path, table)
        return table, True


def variance_path(directory: Path, variant: Variant) -> Path:
    return directory / f"{variant.key}-{code_digest(variant.ruleset)}-variance.npy"


def load_variance(directory: Path, variant: Variant) -> FloatArray | None:
    """The variant's variance table if it is on disk: for every turn-start
    state, the variance of the points still to come under the optimal policy
    (the same shape as the strategy table, whose cells are their mean)."""
    path = variance_path(directory, variant)
    if not path.exists():
        return None
    table: FloatArray = np.load(path, mmap_mode="r")
    return table


def ensure_variance(directory: Path, variant: Variant, workers: int | None = None) -> FloatArray:
    """The variant's variance table, computed first if missing (a solve that
    tracks the second moment: a few seconds to two minutes per variant on 2
    cores; once per machine, under a file lock)."""
    table = load_variance(directory, variant)
    if table is not None:
        return table
    make_dirs(directory)
    path = variance_path(directory, variant)
    with FileLock(str(path) + ".lock", mode=FILE_MODE):
        table = load_variance(directory, variant)
        if table is not None:
            return table
        moments = Solver(variant, workers=workers, moments=True).solve()
        mean, second = moments[..., 0], moments[..., 1]
        variance = np.maximum(second - mean * mean, 0.0)
        write_table(path, variance)
        return variance
