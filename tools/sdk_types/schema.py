"""The server's two documents read as one model for the SDK renderers: the
named shapes (JSON Schemas with bare ``$ref`` names), the code enums, the
lists of values the SDKs name, and the REST operations.

Everything comes from ``GET /api/protocol.json`` and ``/openapi.json``; the
few things this module decides itself are names (which inline unions get
one, which value lists the SDKs export) and the two WebSocket standard close
codes a client meets that the server's enum does not list. A pointer that no
longer resolves is an error that names it: the documents changed shape, so
the tables below change with them.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

Schema = dict[str, Any]

PROTOCOL = "/api/protocol.json"
OPENAPI = "/openapi.json"

# Inline unions the SDKs refer to by name: (document, shape, property) -> name and doc.
HOISTED: dict[tuple[str, str, str], tuple[str, str]] = {
    (PROTOCOL, "EventV1", "event"): ("Event", "A room event as protocol 1 and the REST API carry it."),
    (PROTOCOL, "EventV2", "event"): (
        "EventOnV2",
        "A room event as protocol 2's event message carries it: turn_started, kept and rolled may leave out "
        "``data`` (it is in the room once the message's patch is applied).",
    ),
}


@dataclass(frozen=True)
class ValueList:
    """A list of values the SDKs export as a constant with a type of its own."""

    const: str
    type: str
    doc: str
    document: str
    pointer: str


# The value lists, where each is read. A pointer to a whole shape (Language)
# also names that shape's type wherever the types refer to it.
VALUE_LISTS = (
    ValueList("RULESETS", "Ruleset", "The rule sets.", OPENAPI, "/components/schemas/RoomOut/properties/ruleset"),
    ValueList(
        "BOT_LEVELS",
        "BotLevel",
        "The levels of the server's bots, strongest first (POST /api/rooms/{code}/bots).",
        OPENAPI,
        "/components/schemas/AddBot/properties/level",
    ),
    ValueList(
        "BOT_SPEEDS",
        "BotSpeed",
        "How fast a room's bots play (option bot_speed).",
        PROTOCOL,
        "/$defs/RoomOptions/properties/bot_speed",
    ),
    ValueList(
        "REACTIONS",
        "Reaction",
        "The reactions a seat may send, in the server's order.",
        PROTOCOL,
        "/$defs/ChatReactionData/properties/reaction",
    ),
    ValueList("ROOM_STATUSES", "RoomStatus", "A room's statuses.", PROTOCOL, "/$defs/RoomOut/properties/status"),
    ValueList("GAME_STATUSES", "GameStatus", "A game's statuses.", PROTOCOL, "/$defs/GameOut/properties/status"),
    ValueList(
        "LANGUAGES",
        "Language",
        "The languages of the server's labels and notifications (lang).",
        OPENAPI,
        "/components/schemas/Language",
    ),
    ValueList(
        "PROTOCOLS",
        "Protocol",
        "The socket protocol versions the server speaks (hello's protocol).",
        PROTOCOL,
        "/x-protocols",
    ),
    ValueList("EVENT_TYPES", "EventType", "Every room event's type.", PROTOCOL, "/$defs/EventV1/properties/event"),
    ValueList(
        "CLIENT_MESSAGE_TYPES",
        "ClientMessageType",
        "The messages a client sends on a room socket.",
        PROTOCOL,
        "/$defs/ClientMessage",
    ),
    ValueList(
        "SERVER_MESSAGE_TYPES",
        "ServerMessageType",
        "The messages the server sends on a room socket.",
        PROTOCOL,
        "/$defs/ServerMessageV2",
    ),
)

COMPACT = ValueList(
    "COMPACT_EVENT_TYPES",
    "EventType",
    "The event types whose data protocol 2 may leave out (it is in the room once the patch is applied).",
    PROTOCOL,
    "/$defs/EventV2/properties/event",
)
"""Read by :meth:`Model.compact_event_types`: the events of protocol 2 whose data is not required."""

# WebSocket standard close codes (RFC 6455, 7.4.1) a client meets besides the
# server's own enum: its own normal close, and the keepalive timeout, which
# the server's WebSocket layer (not the app) closes with.
STANDARD_CLOSE_CODES = (
    ("NORMAL", 1000, "a normal closure (the client's own close)"),
    (
        "KEEPALIVE_TIMEOUT",
        1011,
        "the client did not answer the server's pings (keepalive timeout): reconnect with after",
    ),
)


@dataclass(frozen=True)
class Member:
    name: str
    value: str | int
    doc: str = ""


@dataclass(frozen=True)
class CodeEnum:
    """An enum whose members the SDKs name (``ErrorCode.NOT_YOUR_TURN``)."""

    name: str
    doc: str
    members: tuple[Member, ...]


@dataclass(frozen=True)
class Values:
    spec: ValueList
    values: tuple[str | int, ...]


@dataclass(frozen=True)
class Operation:
    """One REST operation: ``GET /api/rooms/{code}``."""

    key: str
    path_params: tuple[tuple[str, Schema, bool], ...]
    query_params: tuple[tuple[str, Schema, bool], ...]
    body: Schema | None
    response: Schema | None  # None: no content (204)


@dataclass
class Model:
    protocol: dict[str, Schema]
    rest: dict[str, Schema]  # the shapes of /openapi.json that /api/protocol.json does not have
    codes: list[CodeEnum]
    lists: list[Values]
    operations: list[Operation]
    enum_types: dict[str, str] = field(default_factory=dict)  # an enum shape -> the constants' type for it

    def compact_event_types(self) -> tuple[str, ...]:
        """The event types whose ``data`` protocol 2 may leave out (not required there)."""
        union = self.protocol["EventOnV2"]
        out = []
        for member in union["oneOf"]:
            shape = self.protocol[member["$ref"]]
            if "data" in shape["properties"] and "data" not in shape.get("required", []):
                out.append(shape["properties"]["type"]["const"])
        return tuple(out)


class SchemaError(Exception):
    """The documents are not shaped as this generator expects: the message says where."""


def resolve(document: Schema, where: str, pointer: str) -> Any:
    node: Any = document
    for part in pointer.strip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise SchemaError(f"{pointer} is not in {where}: update the tables in tools/sdk_types/schema.py")
        node = node[part]
    return node


def bare_refs(node: Any) -> Any:
    """``node`` with every ``$ref`` reduced to the shape's name."""
    if isinstance(node, dict):
        out = {key: bare_refs(value) for key, value in node.items() if key != "discriminator"}
        if "discriminator" in node:
            out["discriminator"] = {"propertyName": node["discriminator"]["propertyName"]}
        if isinstance(node.get("$ref"), str):
            out["$ref"] = re.sub(r"^#/(\$defs|components/schemas)/", "", node["$ref"])
        return out
    if isinstance(node, list):
        return [bare_refs(item) for item in node]
    return node


def values_of(node: Any, shapes: dict[str, Schema], where: str) -> tuple[str | int, ...]:
    """The values a schema allows (an enum, a nullable enum, an array of one),
    the members' tags of a discriminated union, or a plain list."""
    if isinstance(node, list):
        return tuple(node)
    if "enum" in node:
        return tuple(node["enum"])
    if "const" in node:
        return (node["const"],)
    if "items" in node:
        return values_of(node["items"], shapes, where)
    if "oneOf" in node and "discriminator" in node:
        tag = node["discriminator"]["propertyName"]
        return tuple(shapes[m["$ref"]]["properties"][tag]["const"] for m in node["oneOf"])
    if "anyOf" in node:
        return tuple(v for m in node["anyOf"] if m.get("type") != "null" for v in values_of(m, shapes, where))
    raise SchemaError(f"{where}: no list of values in {node}")


def member_name(value: str) -> str:
    name = re.sub(r"\W", "_", value).upper()
    if not name.isidentifier():
        raise SchemaError(f"error code {value!r} gives no identifier")
    return name


def code_enums(protocol: Schema, openapi: Schema) -> list[CodeEnum]:
    errors = resolve(protocol, PROTOCOL, "/$defs/ErrorCode")
    rest_errors = resolve(openapi, OPENAPI, "/components/schemas/ErrorCode")
    if errors["enum"] != rest_errors["enum"]:
        raise SchemaError(f"ErrorCode differs between {PROTOCOL} and {OPENAPI}")
    error_code = CodeEnum(
        "ErrorCode", errors.get("description", ""), tuple(Member(member_name(v), v) for v in errors["enum"])
    )
    closes = resolve(protocol, PROTOCOL, "/$defs/CloseCode")
    names = closes.get("x-enum-varnames")
    if names is None or len(names) != len(closes["enum"]):
        raise SchemaError(f"{PROTOCOL} $defs.CloseCode has no x-enum-varnames naming each code")
    meanings = closes.get("x-meanings", {})
    members = {v: Member(n, v, meanings.get(str(v), "")) for n, v in zip(names, closes["enum"], strict=True)}
    for name, value, doc in STANDARD_CLOSE_CODES:
        members.setdefault(value, Member(name, value, doc))
    doc = "The codes a room socket closes with: the server's, and the WebSocket standard codes a client meets."
    close_code = CodeEnum("CloseCode", doc, tuple(members[v] for v in sorted(members)))
    return [error_code, close_code]


def hoist(shapes: dict[str, Schema], document: str) -> None:
    for (where, shape, prop), (name, doc) in HOISTED.items():
        if where != document:
            continue
        schema = resolve(shapes, document, f"/{shape}/properties/{prop}")
        if "$ref" in schema:
            continue  # named by the document itself
        shapes[name] = {k: v for k, v in schema.items() if k not in ("title", "description")} | {"description": doc}
        shapes[shape]["properties"][prop] = {"$ref": name} | (
            {"description": schema["description"]} if "description" in schema else {}
        )


def operations(openapi: Schema) -> list[Operation]:
    out = []
    for path in sorted(openapi.get("paths", {})):
        item = openapi["paths"][path]
        for method in (m for m in ("get", "put", "post", "patch", "delete") if m in item):
            op = item[method]
            params = sorted(
                (p for p in op.get("parameters", []) if p["in"] in ("path", "query")), key=lambda p: p["name"]
            )
            path_params = tuple((p["name"], bare_refs(p["schema"]), True) for p in params if p["in"] == "path")
            query = tuple(
                (p["name"], bare_refs(p["schema"]), bool(p.get("required"))) for p in params if p["in"] == "query"
            )
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            ok = sorted(status for status in op.get("responses", {}) if status.startswith("2"))
            response: Schema | None = None
            if ok and ok[0] != "204":
                content = op["responses"][ok[0]].get("content", {})
                response = bare_refs(content.get("application/json", {}).get("schema", {}))
            key = f"{method.upper()} {path}"
            out.append(Operation(key, path_params, query, bare_refs(body) if body else None, response))
    return out


# What a type is made of: two documents' shapes of one name must agree on these.
_TYPE_KEYS = ("type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf", "items", "properties", "required")


def _type_of(node: Any) -> Any:
    if isinstance(node, dict):
        kept = {k: v for k, v in node.items() if k in _TYPE_KEYS or k == "additionalProperties"}
        if "properties" in kept:
            kept["properties"] = {name: _type_of(prop) for name, prop in kept["properties"].items()}
        return {k: v if k in ("properties", "required", "enum", "const") else _type_of(v) for k, v in kept.items()}
    if isinstance(node, list):
        return [_type_of(item) for item in node]
    return node


def build(protocol_document: Schema, openapi_document: Schema) -> Model:
    """The model of both documents (neither is changed)."""
    protocol = bare_refs(copy.deepcopy(resolve(protocol_document, PROTOCOL, "/$defs")))
    components = bare_refs(copy.deepcopy(resolve(openapi_document, OPENAPI, "/components/schemas")))
    hoist(protocol, PROTOCOL)
    hoist(components, OPENAPI)
    codes = code_enums(protocol_document, openapi_document)
    documents = {PROTOCOL: (protocol_document, protocol), OPENAPI: (openapi_document, components)}
    lists = []
    enum_types = {code.name: f"{code.name}Value" for code in codes}
    for spec in VALUE_LISTS:
        document, shapes = documents[spec.document]
        node = resolve(document, spec.document, spec.pointer)
        lists.append(Values(spec, values_of(bare_refs(node), shapes, f"{spec.document}{spec.pointer}")))
        whole = re.fullmatch(r"/(\$defs|components/schemas)/(\w+)", spec.pointer)
        if whole and "enum" in node:
            enum_types[whole.group(2)] = spec.type
    rest = {}
    for name, schema in components.items():
        if name not in protocol:
            rest[name] = schema
        elif _type_of(schema) != _type_of(protocol[name]):
            raise SchemaError(f"{name} is not the same type in {PROTOCOL} and {OPENAPI}: give one of them another name")
    for name in enum_types:
        protocol.pop(name, None)
        rest.pop(name, None)
    return Model(protocol, rest, codes, lists, operations(openapi_document), enum_types)
