"""Player names: one normal form, checked the same way for every seat
(docs/api.md, "Names").

A name is put in Unicode NFC, its whitespace (any kind: spaces, tabs,
newlines, no-break spaces) collapsed to single spaces and trimmed. It is
refused with a per-field code when nothing is left (``name_empty``), when it
is longer than :data:`MAX_GRAPHEMES` user-perceived characters (grapheme
clusters, so a family emoji or a Gujarati conjunct counts as one; and
at most :data:`MAX_CODE_POINTS` code points: ``name_too_long``), or when it holds a character nobody can see or type on
purpose (``name_invalid``): control characters, formatting characters such as
the zero-width space or bidirectional overrides, unassigned code points,
private-use and surrogate code points, and the blank letters (Hangul fillers,
the braille blank). The zero-width joiner and non-joiner stay allowed inside
a name, where emoji sequences and Indic scripts need them, as do the tag
characters of subdivision flags.

Two seats of a room never share a name: :func:`same_name` compares names
without case (``casefold``), and the room refuses a second ``Ana`` with
``name_taken``.
"""

from __future__ import annotations

import unicodedata

import regex  # type: ignore[import-untyped]  # (no stubs: types-regex is not a dependency)

from app.rooms.errors import DomainError

MAX_GRAPHEMES = 32
"""The longest name, in grapheme clusters."""

MAX_CODE_POINTS = 64
"""And at most this many code points (what the players.name column holds): a
name of 32 family emoji (five code points each) is too long, one of them with
a word is not."""

MAX_INPUT = 256
"""The longest name a request may carry, in code points, before normalizing (its size limit)."""

_GRAPHEME = regex.compile(r"\X")
# Letters that draw nothing (a name made of them looks empty).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
# Format characters a name may need: joiners (emoji sequences, Indic scripts)
# and the tag characters of subdivision flags.
_JOINERS = frozenset("\u200c\u200d")
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def _refused(char: str) -> bool:
    if char in _BLANK_LETTERS:
        return True
    if unicodedata.category(char) not in _REFUSED_CATEGORIES:
        return False
    return not (char in _JOINERS or "\U000e0020" <= char <= "\U000e007f")


def _error(code: str, detail: str) -> DomainError:
    error = DomainError(code, detail, status=422)
    # the same per-field shape as a schema refusal (docs/api.md, "Errors")
    error.errors = [{"type": code, "loc": ["body", "name"], "msg": detail}]  # type: ignore[attr-defined]
    return error


def graphemes(text: str) -> int:
    """How many user-perceived characters ``text`` has."""
    return len(_GRAPHEME.findall(text))


def normalize_name(raw: str) -> str:
    """The name ``raw`` stands for, or a :class:`DomainError` (422) with
    ``name_empty``, ``name_too_long`` or ``name_invalid``."""
    if len(raw) > MAX_INPUT:
        raise _error("name_too_long", f"a name has at most {MAX_GRAPHEMES} characters")
    # whitespace first: a control character that is whitespace (a newline) is a space
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if any(_refused(char) for char in name):
        raise _error("name_invalid", "a name cannot hold control or invisible characters")
    if name and (name[0] in _JOINERS or name[-1] in _JOINERS):
        raise _error("name_invalid", "a name cannot start or end with an invisible joiner")
    if not name or not any(unicodedata.category(c)[0] in "LNSP" for c in name):
        raise _error("name_empty", "a name needs at least one visible character")
    if graphemes(name) > MAX_GRAPHEMES or len(name) > MAX_CODE_POINTS:
        raise _error("name_too_long", f"a name has at most {MAX_GRAPHEMES} characters")
    return name


def same_name(a: str, b: str) -> bool:
    """Whether two (normalized) names would be taken for each other."""
    return a.casefold() == b.casefold()
