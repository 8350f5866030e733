"""RFC 6902 JSON Patches between two room views (protocol 2's ``patch``).

:func:`diff` returns the operations that turn ``old`` into ``new``:
``replace`` for a changed value, ``add`` and ``remove`` for object members
that appear or go, and a whole ``replace`` of a list whose length changed.
Where the operations for an object or a list would take more bytes than
its new value, the value is replaced whole: a roll changes most of
``scorable``, and one ``replace`` of it is shorter than a dozen. Paths are
RFC 6901 pointers (``~`` and ``/`` in keys escaped).
"""

from __future__ import annotations

from typing import Any

import orjson

Op = dict[str, Any]

_OP_OVERHEAD = len(b'{"op":"replace","path":"","value":}')


def pointer_token(key: str) -> str:
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def diff(old: Any, new: Any) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (empty when equal)."""
    ops: list[Op] = []
    _diff(old, new, "", ops)
    return ops


def replace_all(new: Any) -> list[Op]:
    """A patch that replaces the whole document (for a client whose room is unknown)."""
    return [{"op": "replace", "path": "", "value": new}]


def _diff(old: Any, new: Any, path: str, out: list[Op]) -> None:
    if old == new and type(old) is type(new):
        return
    _changed(old, new, path, out)


def _changed(old: Any, new: Any, path: str, out: list[Op]) -> None:
    """``_diff`` of two values known to differ. (Equal members are skipped
    before their paths are made: most of a room is unchanged.)"""
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[Op] = []
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": f"{path}/{pointer_token(key)}"})
        for key, value in new.items():
            if key in old:
                before = old[key]
                if before == value and type(before) is type(value):
                    continue
                _changed(before, value, f"{path}/{pointer_token(key)}", ops)
            else:
                ops.append({"op": "add", "path": f"{path}/{pointer_token(key)}", "value": value})
        _cheaper(ops, new, path, out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        ops = []
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            if a == b and type(a) is type(b):
                continue
            _changed(a, b, f"{path}/{index}", ops)
        _cheaper(ops, new, path, out)
    else:
        out.append({"op": "replace", "path": path, "value": new})


def _cheaper(ops: list[Op], new: Any, path: str, out: list[Op]) -> None:
    """Keep ``ops``, or one ``replace`` of ``new`` at ``path`` where that is shorter."""
    if len(ops) > 1 and path and len(orjson.dumps(ops)) > len(orjson.dumps(new)) + len(path) + _OP_OVERHEAD:
        out.append({"op": "replace", "path": path, "value": new})
    else:
        out.extend(ops)
