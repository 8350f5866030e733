"""``python -m app config-doc``: docs/configuration.md, generated from the
settings class (:class:`app.config.Settings`), so the reference lists every
setting as the code reads it; a test fails when the file differs."""

from __future__ import annotations

import argparse
import enum
import sys
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from app.config import Settings

HEADER = """\
# Configuration reference

<!-- Generated from app/config.py by `python -m app config-doc --output docs/configuration.md`
     (or `make config-doc`); tests/ops/test_configdoc.py fails when this file differs. Do not edit. -->

Every setting is an environment variable with the prefix `{prefix}`; a `.env` file in the
working directory is read too (the environment wins). Booleans take `true`/`false` (also
`1`/`0`, `yes`/`no`); lists are comma-separated. The server reads them when it starts.

| variable | type | default | meaning |
|---|---|---|---|
"""


def type_name(annotation: Any) -> str:
    """A reader's name for a field's type."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{value}`" for value in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        name = " or ".join(type_name(arg) for arg in args)
        return f"{name}, optional" if len(args) < len(typing.get_args(annotation)) else name
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return "one of " + ", ".join(f"`{member.value}`" for member in annotation)
    names: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean", Path: "path"}
    names[SecretStr] = "string (secret)"
    if annotation in names:
        return names[annotation]
    return getattr(annotation, "__name__", str(annotation))


def default_text(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, SecretStr):
        return "(secret)"
    if isinstance(value, enum.Enum):
        value = value.value
    if value == "":
        return "empty"
    return f"`{value}`"


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    prefix = str(Settings.model_config.get("env_prefix", ""))
    rows = []
    for name, field in Settings.model_fields.items():
        variable = f"`{prefix}{name.upper()}`"
        rows.append(
            f"| {variable} | {cell(type_name(field.annotation))} | {cell(default_text(field))} "
            f"| {cell(field.description or '')} |"
        )
    return HEADER.format(prefix=prefix) + "\n".join(rows) + "\n"


def undocumented() -> list[str]:
    """Settings without a description (the reference needs one for each)."""
    return [name for name, field in Settings.model_fields.items() if not field.description]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("config-doc", help="print the configuration reference (docs/configuration.md)")
    parser.add_argument("--output", type=Path, help="write it to this file instead")
    parser.add_argument("--check", action="store_true", help="exit 1 if --output differs from what it would be")
    parser.set_defaults(handler=_command)


def _command(args: argparse.Namespace) -> int:
    text = render()
    if args.check:
        if args.output is None:
            print("--check needs --output", file=sys.stderr)
            return 2
        if not args.output.is_file() or args.output.read_text() != text:
            fix = f"python -m app config-doc --output {args.output}"
            print(f"{args.output} is out of date: run `{fix}`", file=sys.stderr)
            return 1
        return 0
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text)
    return 0
