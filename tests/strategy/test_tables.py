"""Strategy tables on disk are readable by everyone (files 0644, the
directories made for them 0755) whatever the umask of the process that
solved them: tables solved by one user are served by another."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_tables_solved_under_a_strict_umask_are_readable_by_everyone(tmp_path: Path) -> None:
    own = tmp_path / "own"
    own.mkdir(mode=0o700)
    os.chmod(own, 0o700)  # a directory that exists is left as its owner set it
    directory = own / "made" / "strategy"
    done = subprocess.run(
        [sys.executable, "-m", "app.strategy", "solve", "yacht", "--variance", "--dir", str(directory), "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: os.umask(0o077),
    )
    assert done.returncode == 0, done.stderr
    tables = sorted(directory.glob("*.npy"))
    assert sorted(p.name.endswith("-variance.npy") for p in tables) == [False, True], tables
    assert {p.name: oct(mode(p)) for p in tables} == {p.name: oct(0o644) for p in tables}
    assert oct(mode(directory)) == oct(mode(directory.parent)) == oct(0o755)
    assert oct(mode(own)) == oct(0o700)
    assert not list(directory.glob("*.part")), "no temporary file is left behind"
