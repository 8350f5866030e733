"""Build step: ship the Alembic migrations (``migrations/``, ``alembic.ini``)
inside the package, as ``app/db/_migrations/``, so that a non-editable install
(a wheel, the Docker image) can run ``python -m app migrate`` from any
directory. The source tree keeps them at the top level (``alembic`` works
there as usual); an editable install finds them there (``app.db.migrate``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithMigrations(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "app" / "db" / "_migrations"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "migrations", target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shutil.copy2(ROOT / "alembic.ini", target / "alembic.ini")
        # The web client's transport: the JavaScript SDK, served at /static/sdk/ (app/web/__init__.py).
        sdk = Path(self.build_lib) / "app" / "web" / "_sdk"
        if sdk.exists():
            shutil.rmtree(sdk)
        shutil.copytree(ROOT / "clients" / "js" / "src", sdk)


setup(cmdclass={"build_py": BuildWithMigrations})
