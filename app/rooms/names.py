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
private-use and surrogate code points, the blank letters (Hangul fillers,
the braille blank), and a character carrying more than :data:`MAX_MARKS`
combining marks (a "zalgo" name that streaks over the page). The zero-width
joiner and non-joiner stay allowed inside a name, where emoji sequences and
Indic scripts need them, and tag characters only where they spell a
subdivision flag (U+1F3F4, tags, then the cancel tag), nowhere else (they
draw nothing).

Two seats of a room never share a name: :func:`same_name` compares names
by their confusable skeleton without case (:mod:`app.rooms.confusables`,
Unicode TS #39, default-ignorable characters removed), so ``Ana``, ``ANA``,
and Ana spelt with a Cyrillic A, in fullwidth or in mathematical bold letters
are one name, and the room refuses the second with ``name_taken``. A profile's name follows the same rules
(``app.api.profiles``).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex  # type: ignore[import-untyped]  # (no stubs: types-regex is not a dependency)

from app.rooms.confusables import name_key
from app.rooms.errors import DomainError

MAX_GRAPHEMES = 32
"""The longest name, in grapheme clusters."""

MAX_CODE_POINTS = 64
"""And at most this many code points (what the players.name column holds): a
name of 32 family emoji (five code points each) is too long, one of them with
a word is not."""

MAX_MARKS = 5
"""Combining marks (nonspacing or enclosing) one user-perceived character may carry."""

MAX_INPUT = 256
"""The longest name a request may carry, in code points, before normalizing (its size limit)."""

_GRAPHEME = regex.compile(r"\X")
# Letters that draw nothing (a name made of them looks empty).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
# Format characters a name may need: joiners (emoji sequences, Indic scripts)
# and the tag characters of subdivision flags.
_JOINERS = frozenset("\u200c\u200d")
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_FLAG = "\U0001f3f4"
_TAG_SPEC = regex.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_TAG = regex.compile("[\U000e0000-\U000e007f]")


def _refused(char: str) -> bool:
    if char in _BLANK_LETTERS:
        return True
    if unicodedata.category(char) not in _REFUSED_CATEGORIES:
        return False
    return not (char in _JOINERS or "\U000e0020" <= char <= "\U000e007f")


def _error(code: str, detail: str, field: str = "name") -> DomainError:
    error = DomainError(code, detail, status=422)
    # the same per-field shape as a schema refusal (docs/api.md, "Errors")
    error.errors = [{"type": code, "loc": ["body", field], "msg": detail}]  # type: ignore[attr-defined]
    return error


def graphemes(text: str) -> int:
    """How many user-perceived characters ``text`` has."""
    return len(_GRAPHEME.findall(text))


@dataclass(frozen=True)
class TextRule:
    """How one kind of user text is normalized and what its refusals are called
    (a name here; a chat message in ``app.chat``)."""

    field: str
    """The body field a refusal points at."""
    noun: str
    """What the text is called in a refusal's detail ("a name")."""
    max_graphemes: int
    max_code_points: int
    max_input: int
    """The longest text a request may carry, in code points, before normalizing."""
    empty: str
    too_long: str
    invalid: str
    """The refusals' codes."""


NAME = TextRule(
    "name", "a name", MAX_GRAPHEMES, MAX_CODE_POINTS, MAX_INPUT, "name_empty", "name_too_long", "name_invalid"
)


def normalize_text(raw: str, rule: TextRule) -> str:
    """``raw`` in its normal form (NFC, whitespace collapsed and trimmed), or a
    :class:`DomainError` (422) with the rule's empty, too-long or invalid code."""
    too_long = f"{rule.noun} has at most {rule.max_graphemes} characters"
    if len(raw) > rule.max_input:
        raise _error(rule.too_long, too_long, rule.field)
    # whitespace first: a control character that is whitespace (a newline) is a space
    text = " ".join(unicodedata.normalize("NFC", raw).split())
    if any(_refused(char) for char in text) or _TAG.search(_TAG_SPEC.sub(_FLAG, text)):
        raise _error(rule.invalid, f"{rule.noun} cannot hold control or invisible characters", rule.field)
    if text and (text[0] in _JOINERS or text[-1] in _JOINERS):
        raise _error(rule.invalid, f"{rule.noun} cannot start or end with an invisible joiner", rule.field)
    if not text or not any(unicodedata.category(c)[0] in "LNSP" for c in text):
        raise _error(rule.empty, f"{rule.noun} needs at least one visible character", rule.field)
    if len(text) > rule.max_code_points or graphemes(text) > rule.max_graphemes:
        raise _error(rule.too_long, too_long, rule.field)
    if any(_marks(cluster) > MAX_MARKS for cluster in _GRAPHEME.findall(text)):
        raise _error(rule.invalid, f"{rule.noun} cannot stack more than {MAX_MARKS} marks on one character", rule.field)
    return text


def _marks(cluster: str) -> int:
    return sum(1 for char in cluster if unicodedata.category(char) in ("Mn", "Me"))


def normalize_name(raw: str) -> str:
    """The name ``raw`` stands for, or a :class:`DomainError` (422) with
    ``name_empty``, ``name_too_long`` or ``name_invalid``."""
    return normalize_text(raw, NAME)


def same_name(a: str, b: str) -> bool:
    """Whether two (normalized) names would be taken for each other: the same
    confusable skeleton, without case (:func:`app.rooms.confusables.name_key`)."""
    return name_key(a) == name_key(b)
