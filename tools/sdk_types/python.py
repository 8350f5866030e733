"""The Python SDK's generated package (clients/python/dicecup_client/generated/):
the constants as enums and tuples of ``Literal`` types, and the shapes as
``TypedDict`` classes (rooms stay the plain dicts JSON and patches give;
these describe them to a type checker). Formatted by ruff, as ``make lint``
checks it."""

from __future__ import annotations

import json
import keyword
import subprocess
import sys
from pathlib import Path

from .common import HEADER, WIDTH, dependency_order, describe, one_line, wrap
from .schema import COMPACT, CodeEnum, Model, Schema, SchemaError, Values

INIT = "__init__.py"
CONSTANTS = "constants.py"
PROTOCOL = "protocol.py"
REST = "rest.py"

# Names earlier releases of the Python SDK gave members, kept as aliases.
ALIASES = {"CloseCode": (("KEEPALIVE", "KEEPALIVE_TIMEOUT"),)}
NOTES = {
    "ErrorCode": ":attr:`DicecupError.code` is a plain string, so a code added by a newer server still "
    "arrives; compare it with these members (a ``StrEnum`` equals its value).",
}


def literal(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def string(text: str, indent: str) -> str:
    """A string literal, in parentheses and pieces when it is too long for one line."""
    if len(text) <= 80:
        return literal(text)
    pieces = wrap(text, 80)
    inner = f"\n{indent}    ".join(
        literal(piece + ("" if i == len(pieces) - 1 else " ")) for i, piece in enumerate(pieces)
    )
    return f"(\n{indent}    {inner}\n{indent})"


def docstring(text: str, indent: str) -> list[str]:
    text = one_line(text).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if not text:
        return []
    if text.endswith('"'):
        text = text[:-1] + '\\"'  # not a fourth closing quote
    lines = wrap(text, WIDTH - len(indent) - 6)
    lines[0] = '"""' + lines[0]
    lines[-1] += '"""'
    return [f"{indent}{line}" for line in lines]


def header(what: str) -> list[str]:
    return [*(f"# {line}" for line in HEADER), "", *docstring(what, ""), ""]


class Types:
    """Annotations for the shapes of one module; names defined elsewhere are imported."""

    def __init__(self, model: Model, local: dict[str, Schema], elsewhere: dict[str, str]) -> None:
        self.model = model
        self.local = local
        self.elsewhere = elsewhere
        self.typing: set[str] = set()
        self.imported: dict[str, set[str]] = {}
        self.defined: set[str] = set()
        self.forward = False

    def use(self, name: str) -> str:
        self.typing.add(name)
        return name

    def name(self, ref: str) -> str:
        if ref in self.model.enum_types:
            target = self.model.enum_types[ref]
            self.imported.setdefault(CONSTANTS, set()).add(target)
            return target
        if ref in self.local:
            self.forward = self.forward or ref not in self.defined
            return ref
        if ref in self.elsewhere:
            self.imported.setdefault(self.elsewhere[ref], set()).add(ref)
            return ref
        raise SchemaError(f"no shape named {ref}")

    def of(self, schema: Schema, where: str) -> str:
        if "$ref" in schema:
            return self.name(schema["$ref"])
        if "const" in schema:
            return f"{self.use('Literal')}[{literal(schema['const'])}]"
        if "enum" in schema:
            return f"{self.use('Literal')}[{', '.join(literal(v) for v in schema['enum'])}]"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return " | ".join(dict.fromkeys(self.of(m, where) for m in schema[key]))
        if len(schema.get("allOf", [])) == 1:
            return self.of(schema["allOf"][0], where)
        kind = schema.get("type")
        if isinstance(kind, list):
            return " | ".join(self.of({**schema, "type": k}, where) for k in kind)
        simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
        if isinstance(kind, str) and kind in simple:
            return simple[kind]
        if kind == "array":
            return f"list[{self.of(schema.get('items', {}), where)}]"
        if kind == "object" or "properties" in schema:
            if schema.get("properties"):
                raise SchemaError(f"{where}: an object without a name of its own (give it a model)")
            extra = schema.get("additionalProperties")
            value = self.of(extra, where) if isinstance(extra, dict) else self.use("Any")
            return f"dict[str, {value}]"
        if not any(key in schema for key in ("type", "items", "not")):
            return self.use("Any")
        raise SchemaError(f"{where}: no Python type for {schema}")

    def annotation(self, schema: Schema, where: str) -> str:
        """The annotation, quoted when it names a shape defined further down."""
        self.forward = False
        text = self.of(schema, where)
        return json.dumps(text) if self.forward else text


def shape(types: Types, name: str, schema: Schema) -> list[str]:
    doc = schema.get("description", "")
    properties = schema.get("properties")
    if schema.get("type") != "object" or not properties:
        if schema.get("type") == "object" and not properties and "additionalProperties" not in schema:
            schema = {**schema, "additionalProperties": {}}
        out = [f"{name}: {types.use('TypeAlias')} = {types.annotation(schema, name)}", *docstring(doc, "")]
        types.defined.add(name)
        return out
    required = set(schema.get("required", []))
    fields = []
    for prop, sub in properties.items():
        annotation = types.annotation(sub, f"{name}.{prop}")
        if prop not in required:
            annotation = f"{types.use('NotRequired')}[{annotation}]"
        fields.append((prop, annotation, describe(sub)))
    types.use("TypedDict")
    types.defined.add(name)
    if not all(prop.isidentifier() and not keyword.iskeyword(prop) for prop, _, _ in fields):
        items = ", ".join(f"{literal(prop)}: {annotation}" for prop, annotation, _ in fields)
        return [f"{name} = TypedDict({literal(name)}, {{{items}}})", *docstring(doc, "")]
    # final: no other keys, so ``"text" in data`` narrows a union of them
    out = [f"@{types.use('final')}", f"class {name}(TypedDict):", *docstring(doc, "    ")]
    if doc:
        out.append("")
    for prop, annotation, text in fields:
        out += [f"    {prop}: {annotation}", *docstring(text, "    ")]
    return out


def imports(types: Types) -> list[str]:
    out = []
    if types.typing:
        out.append(f"from typing import {', '.join(sorted(types.typing))}")
    if types.imported:
        out.append("")
    for module in sorted(types.imported):
        names = ", ".join(sorted(types.imported[module]))
        out.append(f"from .{module.removesuffix('.py')} import {names}")
    return out


def shapes_module(model: Model, shapes: dict[str, Schema], elsewhere: dict[str, str], what: str) -> str:
    types = Types(model, shapes, elsewhere)
    body: list[str] = []
    for name in dependency_order(shapes, lambda ref: ref in shapes):
        body += ["", "", *shape(types, name, shapes[name])]
    return "\n".join([*header(what), *imports(types), *body, ""])


def code_enum(code: CodeEnum) -> list[str]:
    base = "StrEnum" if all(isinstance(m.value, str) for m in code.members) else "IntEnum"
    out = [f"class {code.name}({base}):", *docstring(f"{code.doc} {NOTES.get(code.name, '')}", "    "), ""]
    for member in code.members:
        out += [f"    {member.name} = {literal(member.value)}", *docstring(member.doc, "    ")]
    for alias, target in ALIASES.get(code.name, ()):
        value = next(m.value for m in code.members if m.name == target)
        out += [f"    {alias} = {literal(value)}", *docstring(f"The earlier name of {target}.", "    ")]
    values = ", ".join(literal(m.value) for m in code.members)
    out += [
        "",
        "",
        f"{code.name}Value: TypeAlias = Literal[{values}]",
        *docstring(f"The values of {code.name}, as a type.", ""),
    ]
    return out


def value_list(values: Values, new_type: bool = True) -> list[str]:
    spec = values.spec
    out = [f"{spec.type}: TypeAlias = Literal[{', '.join(literal(v) for v in values.values)}]"] if new_type else []
    items = ", ".join(literal(v) for v in values.values) + ("," if len(values.values) == 1 else "")
    return [*out, f"{spec.const}: tuple[{spec.type}, ...] = ({items})", *docstring(spec.doc, "")]


def constants(model: Model) -> str:
    errors, closes = model.codes
    out = header("Constants of the server's documents: error and close codes, and the lists of values the API takes.")
    out += ["from enum import IntEnum, StrEnum", "from typing import Literal, TypeAlias", "", ""]
    out += [*code_enum(errors), "", "", *code_enum(closes)]
    out += ["", f"CLOSE_CODE_MEANINGS: dict[{closes.name}, str] = {{"]
    out += [f"    {closes.name}.{m.name}: {string(one_line(m.doc), '    ')}," for m in closes.members]
    out += ["}", '"""What each close code means."""']
    for values in model.lists:
        out += ["", *value_list(values)]
    out += ["", *value_list(Values(COMPACT, model.compact_event_types()), new_type=False), ""]
    return "\n".join(out)


def formatted(name: str, text: str, root: Path) -> str:
    """``text`` with its imports sorted and formatted by ruff, as if it were ``name`` under ``root``."""
    for command in (["check", "--fix", "--select", "I", "--quiet"], ["format"]):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--stdin-filename", name, "-"],
            input=text,
            capture_output=True,
            text=True,
            cwd=root,
        )
        if done.returncode != 0:
            raise SchemaError(f"ruff {command[0]} failed on the generated {name}:\n{done.stderr}")
        text = done.stdout
    return text


def render(model: Model, root: Path) -> dict[str, str]:
    """The generated package's modules by file name."""
    package = "clients/python/dicecup_client/generated"
    init = "\n".join(
        header(
            "The server's documents as Python: :mod:`.constants` (error and close codes, rule sets, bot levels, "
            "reactions, protocol versions, event types), :mod:`.protocol` (the socket's shapes) and :mod:`.rest` "
            "(the REST API's other shapes). :mod:`dicecup_client.types` names the ones the SDK uses."
        )
    )
    files = {
        INIT: init,
        CONSTANTS: constants(model),
        PROTOCOL: shapes_module(
            model,
            model.protocol,
            {},
            "The socket protocol's shapes (GET /api/protocol.json): every message both ways, every event and "
            "its data, and the room as the welcome and protocol 1 carry it.",
        ),
        REST: shapes_module(
            model,
            model.rest,
            dict.fromkeys(model.protocol, PROTOCOL),
            "The REST API's shapes (/openapi.json) that :mod:`.protocol` does not have.",
        ),
    }
    return {name: formatted(f"{package}/{name}", text, root) for name, text in files.items()}
