"""The SDKs' constants and types, generated from the server's own documents:
the socket protocol's JSON Schema (``GET /api/protocol.json``,
:func:`app.api.protocol.protocol_document`) and the OpenAPI document
(``/openapi.json``, ``create_app().openapi()``), both built in process.

``make sdk-types`` (``python -m tools.sdk_types``) writes them, checked in:

- ``clients/js/src/generated/``: ``constants.js`` (error and close codes,
  reactions, rule sets, bot levels, protocol versions, event types...),
  ``protocol.js`` and ``rest.js`` (every shape as a JSDoc typedef, and the
  REST operations), which ``tsc --noEmit`` checks the SDK against;
- ``clients/python/dicecup_client/generated/``: the same constants as enums
  and tuples, and every shape as a ``TypedDict``, which ``mypy --strict``
  checks the SDK against.

``python -m tools.sdk_types --check`` regenerates them into a temporary
directory and fails, naming the files and showing the difference, when the
checked-in ones differ; ``make lint`` and ``tests/clients/test_sdk_types.py``
run it. The output is deterministic: shapes by name, enums in the server's
order, Python formatted by ruff.
"""

from __future__ import annotations

import difflib
import tempfile
from pathlib import Path

from . import js, python
from .schema import Schema, build

ROOT = Path(__file__).resolve().parents[2]
JS_DIR = "clients/js/src/generated"
PY_DIR = "clients/python/dicecup_client/generated"
DIRS = (JS_DIR, PY_DIR)
REGENERATE = "run `make sdk-types` and commit the result"


def documents() -> tuple[Schema, Schema]:
    """The protocol's JSON Schema and the OpenAPI document, as the server serves them."""
    from app.api.protocol import protocol_document
    from app.main import create_app

    return protocol_document(), create_app().openapi()


def render(protocol: Schema, openapi: Schema) -> dict[str, str]:
    """Every generated file's text by its path in the repository."""
    model = build(protocol, openapi)
    files = {f"{JS_DIR}/{name}": text for name, text in js.render(model).items()}
    files |= {f"{PY_DIR}/{name}": text for name, text in python.render(model, ROOT).items()}
    return files


def write(files: dict[str, str], root: Path) -> None:
    """Write ``files`` under ``root``, and remove any other file of the generated directories."""
    for directory in DIRS:
        for path in (root / directory).glob("*") if (root / directory).is_dir() else ():
            if path.is_file() and str(path.relative_to(root)) not in files:
                path.unlink()
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def generated(root: Path) -> dict[str, str]:
    """The files of the generated directories under ``root``, by path."""
    out = {}
    for directory in DIRS:
        for path in sorted((root / directory).glob("*")) if (root / directory).is_dir() else ():
            if path.is_file() and path.suffix in (".js", ".py"):
                out[str(path.relative_to(root))] = path.read_text(encoding="utf-8")
    return out


def differences(files: dict[str, str], root: Path = ROOT) -> list[str]:
    """What differs between ``files`` (regenerated into a temporary directory)
    and the checked-in files under ``root``: one report per file, with a diff."""
    with tempfile.TemporaryDirectory(prefix="sdk-types-") as scratch:
        write(files, Path(scratch))
        fresh = generated(Path(scratch))
    present = generated(root)
    reports = []
    for name in sorted(fresh.keys() | present.keys()):
        if name not in present:
            reports.append(f"{name}: missing")
        elif name not in fresh:
            reports.append(f"{name}: no longer generated (remove it)")
        elif fresh[name] != present[name]:
            diff = difflib.unified_diff(
                present[name].splitlines(),
                fresh[name].splitlines(),
                f"{name} (checked in)",
                f"{name} (generated)",
                lineterm="",
            )
            lines = list(diff)
            shown = "\n".join(lines[:40]) + (f"\n... ({len(lines) - 40} more lines)" if len(lines) > 40 else "")
            reports.append(f"{name}: out of date\n{shown}")
    return reports
