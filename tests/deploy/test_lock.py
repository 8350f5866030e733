"""The lock files (requirements/*.txt, `make lock`) hold every dependency that
pyproject.toml names, each pinned with hashes, so that `make install` and the
image install exactly what was locked."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def locked(path: Path) -> dict[str, list[str]]:
    """name -> the pinned lines of that name (a name can be pinned per Python version)."""
    text = path.read_text().replace("\\\n", " ")
    pins: dict[str, list[str]] = {}
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)(\[[^\]]*\])?==\S+", line)
        if match:
            pins.setdefault(canonicalize_name(match.group(1)), []).append(line)
    return pins


def declared(extra: str | None = None) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + (project["optional-dependencies"][extra] if extra else [])
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def test_the_locks_hold_every_declared_dependency_with_hashes() -> None:
    for lock, names in [
        (ROOT / "requirements" / "prod.txt", declared()),
        (ROOT / "requirements" / "dev.txt", declared("dev")),
    ]:
        pins = locked(lock)
        missing = sorted(names - pins.keys())
        assert not missing, f"{lock.name} lacks {missing}: run `make lock`"
        for name, lines in pins.items():
            assert all("--hash=sha256:" in line for line in lines), f"{name} in {lock.name} has no hash"


def test_the_runtime_lock_holds_no_development_tool() -> None:
    pins = locked(ROOT / "requirements" / "prod.txt")
    for tool in ("pytest", "ruff", "mypy", "playwright", "hypothesis", "watchfiles"):
        assert tool not in pins
