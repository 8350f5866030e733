"""Encoding and error responses: every error body is ``{"detail", "code"}``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response

from app.rooms import DomainError


class ORJSONResponse(JSONResponse):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def error_response(
    status: int, code: str, detail: str, headers: Mapping[str, str] | None = None, **extra: Any
) -> ORJSONResponse:
    return ORJSONResponse({"detail": detail, "code": code, **extra}, status_code=status, headers=headers)


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}


def _jsonable_errors(errors: Any) -> list[dict[str, Any]]:
    out = []
    for error in errors:
        item = {k: v for k, v in error.items() if k in ("type", "loc", "msg")}
        item["loc"] = [str(part) for part in item.get("loc", ())]
        out.append(item)
    return out


def _methods_of_path(request: Request) -> set[str]:
    """Every method the OpenAPI document gives the request's path (a path can
    have several routes, e.g. GET and DELETE; the router's own 405 names only
    the first one's)."""
    app = request.app
    table: list[tuple[re.Pattern[str], set[str]]] | None = getattr(app.state, "path_methods", None)
    if table is None:
        table = []
        for template, item in app.openapi().get("paths", {}).items():
            pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            table.append((re.compile(pattern), {method.upper() for method in item}))
        app.state.path_methods = table
    path = request.url.path
    root = request.scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return {method for pattern, methods in table if pattern.fullmatch(path) for method in methods}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def _domain(request: Request, exc: DomainError) -> Response:
        errors = getattr(exc, "errors", None)
        extra = {} if errors is None else {"errors": errors}
        headers = None
        if exc.status == 429:  # every 429 says when to come back (1 s unless the limit knows better)
            headers = {"Retry-After": str(exc.retry_after or 1)}
        elif exc.retry_after is not None:  # a 503 server_busy: come back in a moment
            headers = {"Retry-After": str(exc.retry_after)}
        return error_response(exc.status, exc.code, exc.detail, headers, **extra)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        errors = _jsonable_errors(exc.errors())
        first = errors[0]["msg"] if errors else "invalid request"
        return error_response(422, "invalid_request", f"invalid request: {first}", errors=errors)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> Response:
        # Keep the exception's headers: a 405 names the path's methods in Allow.
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        headers = exc.headers
        if exc.status_code == 405:
            # The router answers from the first route whose path matched; a
            # path with several routes (GET and DELETE) has all their methods.
            methods = _methods_of_path(request)
            if methods:
                headers = {**(headers or {}), "Allow": ", ".join(sorted(methods))}
        return error_response(exc.status_code, code, str(exc.detail), headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        # A bug, never bad input: logged by the server with its traceback.
        request.app.state.logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, "internal_error", "internal server error")
