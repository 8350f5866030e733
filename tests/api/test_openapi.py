"""The OpenAPI document's promises (issue 11, item 11), read off the document
itself; tests/api/test_schemathesis.py checks the server keeps them."""

from typing import Any

import pytest

from app.main import create_app
from app.rooms import ErrorCode

DOCUMENT = create_app().openapi()
SCHEMAS = DOCUMENT["components"]["schemas"]
OPERATIONS = [
    (method.upper(), path, operation)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
    if path.startswith("/api/")
]
# Exempt from the per-address request budget (app.observability): probes must answer under load.
PROBES = {"/api/health", "/api/ready"}


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def strings(schema: dict[str, Any], where: str, seen: frozenset[str] = frozenset()) -> list[tuple[str, dict]]:
    """Every string schema inside ``schema`` (through refs, unions, arrays and objects)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return [] if name in seen else strings(SCHEMAS[name], f"{where}>{name}", seen | {name})
    found = []
    if schema.get("type") == "string" and "enum" not in schema and "const" not in schema:
        found.append((where, schema))
    for key in ("anyOf", "oneOf", "allOf"):
        for i, option in enumerate(schema.get(key, [])):
            found += strings(option, f"{where}|{i}", seen)
    if "items" in schema:
        found += strings(schema["items"], f"{where}[]", seen)
    for name, prop in schema.get("properties", {}).items():
        found += strings(prop, f"{where}.{name}", seen)
    if isinstance(schema.get("additionalProperties"), dict):
        found += strings(schema["additionalProperties"], f"{where}.*", seen)
    return found


def test_error_codes_are_one_enum() -> None:
    assert SCHEMAS["ErrorCode"]["enum"] == [code.value for code in ErrorCode]
    assert SCHEMAS["Error"]["properties"]["code"] == {"$ref": "#/components/schemas/ErrorCode"}
    assert SCHEMAS["SocketError"]["properties"]["code"] == {"$ref": "#/components/schemas/ErrorCode"}
    assert "HTTPValidationError" not in SCHEMAS and "ValidationError" not in SCHEMAS


@pytest.mark.parametrize(("method", "path", "operation"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS])
def test_operation(method: str, path: str, operation: dict[str, Any]) -> None:
    responses = operation["responses"]
    for status, response in responses.items():
        if status.startswith(("4", "5")) and path not in PROBES:
            assert response["content"] == {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    # every request counts against the address's budget: 429, with Retry-After
    if path not in PROBES:
        assert responses["429"]["headers"]["Retry-After"]["required"] is True
    if "requestBody" in operation:
        assert "413" in responses and "422" in responses
    if operation.get("parameters") or "requestBody" in operation:
        assert "422" in responses
    # the seat token is an HTTP bearer scheme, never a bare header parameter
    assert not [p for p in operation.get("parameters", []) if p["name"].lower() == "authorization"]
    if operation.get("security") == [{"seatToken": []}]:
        assert {"401", "403"} <= set(responses)
    elif operation.get("security"):
        # a profile's token (app.profiles): optional on creating and joining a room, else required
        assert operation["security"] == [{"profileToken": []}]
        assert "401" in responses
    # every string a client sends is bounded
    for parameter in operation.get("parameters", []):
        for where, schema in strings(parameter["schema"], parameter["name"]):
            assert "maxLength" in schema, where
        if parameter["schema"].get("type") == "integer":
            assert parameter["schema"]["maximum"] <= 2**31 - 1
    if "requestBody" in operation:
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        for where, schema in strings(body, "body"):
            assert "maxLength" in schema, where


def test_security_scheme() -> None:
    assert DOCUMENT["components"]["securitySchemes"]["seatToken"]["type"] == "http"
    assert DOCUMENT["components"]["securitySchemes"]["seatToken"]["scheme"] == "bearer"
    assert DOCUMENT["components"]["securitySchemes"]["profileToken"]["scheme"] == "bearer"
    secured = {(m, p) for m, p, op in OPERATIONS if op.get("security") == [{"seatToken": []}]}
    assert secured == {
        ("DELETE", "/api/rooms/{code}/players/{player_id}"),
        ("POST", "/api/rooms/{code}/games"),
        ("POST", "/api/rooms/{code}/bots"),
        ("POST", "/api/rooms/{code}/rematch"),
        ("GET", "/api/rooms/{code}/hint"),
        ("POST", "/api/rooms/{code}/actions"),
        ("PUT", "/api/rooms/{code}/players/{player_id}/push"),
        ("DELETE", "/api/rooms/{code}/players/{player_id}/push"),
        ("POST", "/api/rooms/{code}/chat"),
        ("PUT", "/api/rooms/{code}/players/{player_id}/mute"),
        ("DELETE", "/api/rooms/{code}/players/{player_id}/mute"),
    }


def test_dice_positions() -> None:
    for model, field in [("KeepAction", "dice"), ("RollAction", "keep")]:
        schema = SCHEMAS[model]["properties"][field]
        array = next(s for s in schema.get("anyOf", [schema]) if s.get("type") == "array")
        assert array["items"] == {"type": "integer", "minimum": 0, "maximum": 4}
        assert array["maxItems"] == 5 and array["uniqueItems"] is True


def test_integers_in_bodies_are_bounded() -> None:
    expected = SCHEMAS["RollAction"]["properties"]["expected_version"]["anyOf"][0]
    assert expected == {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}
    assert SCHEMAS["CreateRoom"]["properties"]["max_players"]["maximum"] == 8


def test_response_shapes() -> None:
    room = SCHEMAS["RoomOut"]["properties"]
    assert room["options"] == {"$ref": "#/components/schemas/RoomOptions"}
    assert room["status"]["enum"] == ["lobby", "playing", "finished", "closed"]
    assert SCHEMAS["TurnOut"]["properties"]["dice"]["anyOf"][1] == {"type": "null"}
    assert SCHEMAS["PlayerOut"]["properties"]["bot"]["anyOf"][1] == {"type": "null"}
    assert set(SCHEMAS["HintOut"]["properties"]["best"]["discriminator"]["mapping"]) == {"keep", "score"}


def test_profile_token_operations() -> None:
    profiled = {(m, p) for m, p, op in OPERATIONS if op.get("security") == [{"profileToken": []}]}
    assert profiled == {
        ("POST", "/api/rooms"),
        ("POST", "/api/rooms/{code}/players"),
        ("POST", "/api/quickplay"),
        ("GET", "/api/profiles/me"),
        ("PATCH", "/api/profiles/me"),
        ("DELETE", "/api/profiles/me"),
        ("GET", "/api/profiles/me/export"),
        ("GET", "/api/profiles/me/games"),
        ("POST", "/api/profiles/me/credentials"),
        ("DELETE", "/api/sessions/current"),
        ("DELETE", "/api/sessions"),
        ("POST", "/api/rooms/{code}/players/{player_id}/token"),
    }
