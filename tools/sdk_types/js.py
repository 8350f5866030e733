"""The JavaScript SDK's generated modules (clients/js/src/generated/): the
constants, and the shapes as JSDoc typedefs that ``tsc --noEmit`` checks
the SDK against."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial

from .common import HEADER, WIDTH, describe, join_union, one_line, wrap
from .schema import COMPACT, CodeEnum, Model, Operation, Schema, SchemaError, Values

CONSTANTS = "constants.js"
PROTOCOL = "protocol.js"
REST = "rest.js"


def literal(value: object) -> str:
    """A JavaScript literal: strings in single quotes, or double where that saves escapes."""
    if isinstance(value, str):
        if "'" in value and '"' not in value:
            return json.dumps(value, ensure_ascii=False)
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return json.dumps(value)


def comment(text: str) -> str:
    return text.replace("*/", "*\\/")


def js_text(text: str) -> str:
    """Documentation written for Python (``code``) as Markdown (`code`)."""
    return text.replace("``", "`")


def header(what: str) -> list[str]:
    return [*(f"// {line}" for line in HEADER), "//", *(f"// {line}" for line in wrap(what, WIDTH - 3)), ""]


class Types:
    """Type expressions for the shapes of one module: names it does not define
    are imported (``import('./x.js').Name``) by typedefs at its top."""

    def __init__(self, model: Model, local: dict[str, Schema], elsewhere: dict[str, str]) -> None:
        self.model = model
        self.local = local
        self.elsewhere = elsewhere  # a name -> the module that defines it
        self.imported: dict[str, str] = {}

    def name(self, ref: str) -> str:
        if ref in self.model.enum_types:
            target = self.model.enum_types[ref]
            self.imported[target] = CONSTANTS
            return target
        if ref in self.local:
            return ref
        if ref in self.elsewhere:
            self.imported[ref] = self.elsewhere[ref]
            return ref
        raise SchemaError(f"no shape named {ref}")

    def of(self, schema: Schema) -> str:
        if "$ref" in schema:
            return self.name(schema["$ref"])
        if "const" in schema:
            return literal(schema["const"])
        if "enum" in schema:
            return join_union(literal(v) for v in schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return join_union(self.of(member) for member in schema[key])
        if len(schema.get("allOf", [])) == 1:
            return self.of(schema["allOf"][0])
        kind = schema.get("type")
        if isinstance(kind, list):
            return join_union(self.of({**schema, "type": k}) for k in kind)
        if kind == "string":
            return "string"
        if kind in ("integer", "number"):
            return "number"
        if kind == "boolean":
            return "boolean"
        if kind == "null":
            return "null"
        if kind == "array":
            item = self.of(schema.get("items", {}))
            return f"({item})[]" if " " in item and not item.startswith("{") else f"{item}[]"
        if kind == "object" or "properties" in schema:
            if schema.get("properties"):
                fields = ", ".join(
                    f"{name}{'' if name in schema.get('required', []) else '?'}: {self.of(prop)}"
                    for name, prop in schema["properties"].items()
                )
                return "{" + fields + "}"
            extra = schema.get("additionalProperties")
            return f"Record<string, {self.of(extra)}>" if isinstance(extra, dict) else "Record<string, unknown>"
        if not any(key in schema for key in ("type", "items", "not")):
            return "unknown"
        raise SchemaError(f"no JavaScript type for {schema}")

    def imports(self) -> list[str]:
        return [
            f"/** @typedef {{import('./{module}').{name}}} {name} */" for name, module in sorted(self.imported.items())
        ]


def block(lines: list[str]) -> list[str]:
    if len(lines) == 1 and len(lines[0]) <= WIDTH - 7:
        return [f"/** {lines[0]} */"]
    return ["/**", *(f" * {line}".rstrip() for line in lines), " */"]


def doc_lines(text: str) -> list[str]:
    return [comment(line) for line in wrap(js_text(one_line(text)), WIDTH - 3)] if text.strip() else []


def typed_lines(tag: str, type_text: str, name: str, text: str = "") -> list[str]:
    """``@tag {type} name text``, the type broken at ``|`` and the text wrapped to the width."""
    parts = type_text.split(" | ")
    lines = [f"@{tag} {{{parts[0]}"]
    for part in parts[1:]:
        if len(lines[-1]) + len(part) + 3 > WIDTH - 6:
            lines.append(f"  | {part}")
        else:
            lines[-1] += f" | {part}"
    lines[-1] += f"}} {name}"
    if not text:
        return lines
    words = comment(text).split(" ")
    while words and len(lines[-1]) + len(words[0]) + 1 <= WIDTH - 3:
        lines[-1] += " " + words.pop(0)
    return lines + [f"  {line}" for line in wrap(" ".join(words), WIDTH - 6)] if words else lines


def typedef(types: Types, name: str, schema: Schema) -> list[str]:
    lines = doc_lines(schema.get("description", ""))
    properties = schema.get("properties")
    if schema.get("type") == "object" and properties is not None and properties:
        lines.append(f"@typedef {{object}} {name}")
        for prop, sub in properties.items():
            shown = prop if prop in schema.get("required", []) else f"[{prop}]"
            lines += typed_lines("property", types.of(sub), shown, js_text(describe(sub)))
    else:
        lines += typed_lines("typedef", types.of(schema), name)
    return block(lines)


def shapes_module(
    model: Model,
    shapes: dict[str, Schema],
    elsewhere: dict[str, str],
    what: str,
    extra: Callable[[Types], list[str]] | None = None,
) -> str:
    types = Types(model, shapes, elsewhere)
    body: list[str] = []
    for name in sorted(shapes):
        body += ["", *typedef(types, name, shapes[name])]
    if extra is not None:
        body += ["", *extra(types)]
    return "\n".join([*header(what), *types.imports(), *body, "", "export {};", ""])


def operations(ops: list[Operation], types: Types) -> list[str]:
    def params(items: tuple[tuple[str, Schema, bool], ...]) -> str:
        if not items:
            return "NoParams"
        return "{" + ", ".join(f"{n}{'' if req else '?'}: {types.of(s)}" for n, s, req in items) + "}"

    lines = doc_lines(
        "Every operation of /openapi.json by method and path: its path and query parameters, its JSON body "
        "(undefined: it takes none) and its JSON answer (undefined: 204 No Content)."
    )
    lines.append("@typedef {{")
    for op in ops:
        body = types.of(op.body) if op.body is not None else "undefined"
        response = types.of(op.response) if op.response is not None else "undefined"
        parts = [
            f"path: {params(op.path_params)}",
            f"query: {params(op.query_params)}",
            f"body: {body}",
            f"response: {response}",
        ]
        entry = f"  {literal(op.key)}: {{{', '.join(parts)}}},"
        if len(entry) <= WIDTH - 3:
            lines.append(entry)
        else:
            lines += [f"  {literal(op.key)}: {{", *(f"    {part}," for part in parts), "  },"]
    lines.append("}} Operations")
    out = [*block(lines), "", "/** No parameters. @typedef {Record<string, never>} NoParams */"]
    for alias, part, doc in (
        ("ResponseOf", "response", "The answer of an operation."),
        ("BodyOf", "body", "The JSON body an operation takes."),
        ("QueryOf", "query", "The query parameters of an operation."),
        ("PathOf", "path", "The path parameters of an operation."),
    ):
        out += ["", *block([doc, "@template {keyof Operations} K", f"@typedef {{Operations[K]['{part}']}} {alias}"])]
    return out


def code_enum(code: CodeEnum, note: str) -> list[str]:
    value_type = f"{code.name}Value"
    out = [*block(doc_lines(f"{code.doc} {note}")), f"export const {code.name} = Object.freeze({{"]
    for member in code.members:
        if member.doc:
            out.append(f"  /** {comment(one_line(member.doc))} */")
        out.append(f"  {member.name}: {literal(member.value)},")
    out += ["});", "", f"/** @typedef {{typeof {code.name}[keyof typeof {code.name}]}} {value_type} */"]
    return out


def value_list(values: Values, new_type: bool = True) -> list[str]:
    spec = values.spec
    out = []
    if new_type:
        out = [*block(typed_lines("typedef", join_union(literal(v) for v in values.values), spec.type)), ""]
    out += block([*doc_lines(spec.doc), f"@type {{readonly {spec.type}[]}}"])
    items = [literal(v) for v in values.values]
    line = f"export const {spec.const} = Object.freeze([{', '.join(items)}]);"
    if len(line) <= WIDTH:
        return [*out, line]
    return [*out, f"export const {spec.const} = Object.freeze([", *(f"  {item}," for item in items), "]);"]


def constants(model: Model) -> str:
    errors, closes = model.codes
    out = header("Constants of the server's documents: error and close codes, and the lists of values the API takes.")
    out += code_enum(errors, "A newer server may send a code this list does not have yet.")
    out += ["", f"/** Every error code, in the server's order. @type {{readonly {errors.name}Value[]}} */"]
    out += [f"export const ERROR_CODES = Object.freeze(Object.values({errors.name}));", ""]
    out += code_enum(closes, "")
    out += ["", f"/** What each close code means. @type {{Readonly<Record<{closes.name}Value, string>>}} */"]
    out += ["export const CLOSE_CODE_MEANINGS = Object.freeze({"]
    out += [f"  {m.value}: {literal(one_line(m.doc))}," for m in closes.members]
    out += ["});"]
    for values in model.lists:
        out += ["", *value_list(values)]
    compact = Values(COMPACT, model.compact_event_types())
    out += ["", *value_list(compact, new_type=False), ""]
    return "\n".join(out)


def render(model: Model) -> dict[str, str]:
    """The generated modules by file name."""
    protocol = shapes_module(
        model,
        model.protocol,
        {},
        "The socket protocol's shapes (GET /api/protocol.json): every message both ways, every event and its data, "
        "and the room as the welcome and protocol 1 carry it.",
    )
    rest = shapes_module(
        model,
        model.rest,
        dict.fromkeys(model.protocol, PROTOCOL),
        "The REST API's shapes (/openapi.json) that the protocol's module does not have, and its operations.",
        partial(operations, model.operations),
    )
    return {CONSTANTS: constants(model), PROTOCOL: protocol, REST: rest}
