"""The SQLite database's files are the server's alone.

They hold the VAPID private key, the push subscriptions' secrets and the
password hashes, so the database, its ``-wal``, ``-shm`` and ``-journal``
files and the backups are made (or, when found otherwise, set) readable and
writable by the server's user only (0600), whatever the umask, and a data
directory the server makes is 0700. SQLite creates the ``-wal``, ``-shm``
and ``-journal`` files with the database file's own permissions, so a
0600 database keeps them 0600 too."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE = 0o600
SIDE_FILES = ("-wal", "-shm", "-journal")


def private_sqlite_files(path: Path) -> None:
    """Make ``path``'s directory (if missing: 0700), the database file (if
    missing: empty, 0600) and its side files 0600."""
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE))
    for file in (path, *(Path(f"{path}{suffix}") for suffix in SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            if file.stat().st_mode & 0o777 != PRIVATE:
                os.chmod(file, PRIVATE)
