"""The OpenAPI document (``/openapi.json``): FastAPI's, made exact.

What FastAPI cannot know is filled in here: the bodies the routes read
themselves (:data:`app.api.body.BODY_SCHEMAS`), the real 422 body (the one
``Error`` of every refusal, not FastAPI's ``HTTPValidationError``), and the
WebSocket's ``error`` message, whose ``code`` is the same :class:`ErrorCode`
enum as every error body's.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import TypeAdapter

from . import schemas
from .body import BODY_SCHEMAS

_REF = "#/components/schemas/{model}"
_ERROR = {"application/json": {"schema": {"$ref": _REF.format(model="Error")}}}
INVALID = "invalid_request: malformed JSON, a missing or unknown field, a wrong type or a value out of range"


def openapi_document(app: FastAPI) -> dict[str, Any]:
    document = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components.update(BODY_SCHEMAS)
    socket_error = TypeAdapter(schemas.SocketError).json_schema(ref_template=_REF)
    components.update(socket_error.pop("$defs", {}))
    components["SocketError"] = socket_error
    for item in document.get("paths", {}).values():
        for operation in item.values():
            invalid = operation.get("responses", {}).get("422")
            if invalid is not None:
                invalid["description"] = INVALID
                invalid["content"] = _ERROR
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    return document
