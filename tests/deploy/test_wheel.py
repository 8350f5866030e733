"""A non-editable install (a wheel, as in the Docker image) carries its
migrations: ``python -m app migrate`` works from any directory."""

import os
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_migrates_a_database_from_another_directory(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(ROOT), "-w", str(wheels)],
        check=True,
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PIP_NO_CACHE_DIR": "1"},
    )
    (wheel,) = wheels.glob("dicecup-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "app/db/_migrations/alembic.ini" in names
    assert "app/db/_migrations/env.py" in names
    assert any(name.startswith("app/db/_migrations/versions/0001_") for name in names)

    # The wheel's package only, never the source tree (the test environment
    # supplies the dependencies).
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    database = tmp_path / "db" / "dicecup.db"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DICECUP_")},
        "PYTHONPATH": str(site),
        "DICECUP_DATABASE_URL": f"sqlite:///{database}",
    }
    where = subprocess.run(
        [sys.executable, "-c", "import app.db.migrate as m; print(m.migrations_location()[1])"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip() == str(site / "app" / "db" / "_migrations")
    migrated = subprocess.run(
        [sys.executable, "-m", "app", "migrate"], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert migrated.returncode == 0, migrated.stderr
    with sqlite3.connect(database) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        (head,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert {"rooms", "players", "games", "events", "alembic_version"} <= tables
    heads = sorted(p.name.split("_")[0] for p in (ROOT / "migrations" / "versions").glob("*.py"))
    assert head == heads[-1]
    assert not list(elsewhere.iterdir())  # nothing written where it ran
