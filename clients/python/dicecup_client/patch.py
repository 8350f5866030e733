"""RFC 6902 JSON Patch and RFC 6901 JSON Pointer, without dependencies.

:func:`apply_patch` never changes the document it is given: it copies only
the objects and arrays on the path of each operation and shares the rest
(path copying), so a room handed to a subscriber stays as it was while the
store moves on. Treat rooms as immutable values.

The server sends ``add``, ``remove`` and ``replace`` (the path ``""`` being
the whole document); ``move``, ``copy`` and ``test`` are implemented too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["PatchError", "apply_patch", "escape", "parse_pointer", "resolve"]


class PatchError(ValueError):
    """A patch that cannot be applied to the document (a missing member, an
    index out of range, a malformed pointer or operation, a failed ``test``)."""


def escape(token: str) -> str:
    """One reference token of a pointer: ``~`` as ``~0``, ``/`` as ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def parse_pointer(pointer: str) -> list[str]:
    """The reference tokens of an RFC 6901 pointer (``""``: none, the whole document)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"a pointer starts with '/': {pointer!r}")
    tokens = pointer[1:].split("/")
    for token in tokens:
        rest = token.replace("~0", "").replace("~1", "")
        if "~" in rest:
            raise PatchError(f"bad escape in {pointer!r}")
    # ~1 first, then ~0 (RFC 6901 section 4): "~01" is "~1", not "/"
    return [token.replace("~1", "/").replace("~0", "~") for token in tokens]


def _index(token: str, length: int, *, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return length
    if not token.isdigit() or not token.isascii() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(f"not an array index: {token!r}")
    index = int(token)
    if index > length or (index == length and not allow_end):
        raise PatchError(f"index {index} out of range (length {length})")
    return index


def resolve(document: Any, pointer: str) -> Any:
    """The value ``pointer`` names in ``document``."""
    value = document
    for token in parse_pointer(pointer):
        if isinstance(value, dict):
            if token not in value:
                raise PatchError(f"no member {token!r} at {pointer!r}")
            value = value[token]
        elif isinstance(value, list):
            value = value[_index(token, len(value), allow_end=False)]
        else:
            raise PatchError(f"{pointer!r} goes through a scalar")
    return value


def _copy(container: Any) -> Any:
    if isinstance(container, dict):
        return dict(container)
    if isinstance(container, list):
        return list(container)
    raise PatchError("a path goes through a scalar")


def _edit(document: Any, tokens: list[str], change: Any) -> Any:
    """A copy of ``document`` with ``change(parent, last_token)`` applied to a
    copy of the parent of ``tokens``; every container on the path is copied."""
    root = _copy(document)
    parent = root
    for token in tokens[:-1]:
        if isinstance(parent, dict):
            if token not in parent:
                raise PatchError(f"no member {token!r}")
            child = _copy(parent[token])
            parent[token] = child
        else:
            position = _index(token, len(parent), allow_end=False)
            child = _copy(parent[position])
            parent[position] = child
        parent = child
    change(parent, tokens[-1])
    return root


def _add(document: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value

    def change(parent: Any, token: str) -> None:
        if isinstance(parent, dict):
            parent[token] = value
        else:
            parent.insert(_index(token, len(parent), allow_end=True), value)

    return _edit(document, tokens, change)


def _remove(document: Any, tokens: list[str]) -> Any:
    if not tokens:
        raise PatchError("cannot remove the whole document")

    def change(parent: Any, token: str) -> None:
        if isinstance(parent, dict):
            if token not in parent:
                raise PatchError(f"no member {token!r} to remove")
            del parent[token]
        else:
            del parent[_index(token, len(parent), allow_end=False)]

    return _edit(document, tokens, change)


def _replace(document: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value

    def change(parent: Any, token: str) -> None:
        if isinstance(parent, dict):
            if token not in parent:
                raise PatchError(f"no member {token!r} to replace")
            parent[token] = value
        else:
            parent[_index(token, len(parent), allow_end=False)] = value

    return _edit(document, tokens, change)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality (RFC 6902 ``test``): numbers by value, but ``true`` is not ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def apply_patch(document: Any, patch: Iterable[Mapping[str, Any]]) -> Any:
    """``document`` after the operations of ``patch``, in order (the input is
    not changed). Raises :class:`PatchError` when an operation cannot apply;
    the patch is then not applied at all (RFC 6902 section 5)."""
    for operation in patch:
        op = operation.get("op")
        path = operation.get("path")
        if not isinstance(path, str):
            raise PatchError(f"an operation without a path: {operation!r}")
        tokens = parse_pointer(path)
        if op in ("add", "replace", "test") and "value" not in operation:
            raise PatchError(f"{op} without a value: {operation!r}")
        if op == "add":
            document = _add(document, tokens, operation["value"])
        elif op == "remove":
            document = _remove(document, tokens)
        elif op == "replace":
            document = _replace(document, tokens, operation["value"])
        elif op in ("move", "copy"):
            source = operation.get("from")
            if not isinstance(source, str):
                raise PatchError(f"{op} without from: {operation!r}")
            value = resolve(document, source)
            if op == "move":
                if path.startswith(source + "/"):
                    raise PatchError(f"cannot move {source!r} into itself")
                document = _remove(document, parse_pointer(source))
            document = _add(document, tokens, value)
        elif op == "test":
            if not _equal(resolve(document, path), operation["value"]):
                raise PatchError(f"test failed at {path!r}")
        else:
            raise PatchError(f"unknown operation {op!r}")
    return document
