"""docs/configuration.md is what the settings class says, so it cannot drift."""

import subprocess
import sys
from pathlib import Path

from app.config import Settings
from app.ops.configdoc import render, undocumented

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "configuration.md"


def test_the_reference_is_generated_from_the_settings_class() -> None:
    assert REFERENCE.read_text() == render(), (
        "docs/configuration.md is out of date: run `python -m app config-doc --output docs/configuration.md`"
    )


def test_every_setting_is_listed_and_described() -> None:
    assert undocumented() == [], "give these settings a description (Field(..., description=...))"
    text = REFERENCE.read_text()
    for name in Settings.model_fields:
        assert f"`DICECUP_{name.upper()}`" in text


def test_the_command_checks_the_file(tmp_path: Path) -> None:
    out = tmp_path / "configuration.md"
    command = [sys.executable, "-m", "app", "config-doc", "--output", str(out)]
    assert subprocess.run([*command, "--check"], capture_output=True).returncode == 1
    subprocess.run(command, check=True)
    assert subprocess.run([*command, "--check"], capture_output=True).returncode == 0
    assert out.read_text() == render()
