"""Reading request bodies ourselves, so that refusals come in the order
``docs/api.md`` gives (404 room, 413, 401/403, 429, 422), and documenting them."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError
from starlette.requests import Request

from app.rooms import DomainError

from .responses import _jsonable_errors

T = TypeVar("T")

BODY_SCHEMAS: dict[str, Any] = {}
"""Component schemas of the bodies read here, merged into the OpenAPI document."""


async def capped_body(request: Request, limit: int) -> tuple[bytes, DomainError | None]:
    """The body, or an empty one and the ``too_large`` refusal if it is longer
    than ``limit`` bytes (reading stops there). The caller raises the refusal
    where it comes in docs/api.md's order (after the room lookup)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return b"", too_large(limit)
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return b"", too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks), None


class InvalidBody(DomainError):
    def __init__(self, detail: str, errors: list[dict[str, Any]]) -> None:
        super().__init__("invalid_request", detail)
        self.errors = errors


def parse(adapter: TypeAdapter[T], body: bytes) -> T:
    try:
        return adapter.validate_json(body or b"null")
    except ValidationError as invalid:
        errors = _jsonable_errors(invalid.errors())
        raise InvalidBody(f"invalid request: {errors[0]['msg'] if errors else 'bad body'}", errors) from None


def too_large(limit: int) -> DomainError:
    return DomainError("too_large", f"the body is over {limit} bytes")


def request_body(name: str, adapter: TypeAdapter[Any]) -> dict[str, Any]:
    """``openapi_extra`` documenting a body that the route reads itself."""
    schema = adapter.json_schema(ref_template="#/components/schemas/{model}")
    BODY_SCHEMAS.update(schema.pop("$defs", {}))
    BODY_SCHEMAS[name] = schema
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
        }
    }
