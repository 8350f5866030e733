"""JSON Patches between room views: applying ``diff(old, new)`` to ``old``
gives ``new``, by the ``jsonpatch`` library (an independent RFC 6902
implementation) and by the Python client's applier."""

import jsonpatch
from dicecup_client.patch import apply_patch
from hypothesis import given
from hypothesis import strategies as st

from app.realtime.patch import diff, replace_all

scalars = st.none() | st.booleans() | st.integers(-5, 300) | st.text(max_size=4)
keys = st.sampled_from(["a", "b", "c/d", "e~f", "", "0", "turn", "scorable"])
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=20
)
documents = st.dictionaries(keys, values, max_size=5)


def check(old, new) -> None:
    ops = diff(old, new)
    assert jsonpatch.apply_patch(old, ops) == new
    assert apply_patch(old, ops) == new  # and by the Python client's applier
    if old == new:
        assert ops == []


@given(documents, documents)
def test_any_two_documents(old, new) -> None:
    check(old, new)


@given(documents, st.data())
def test_a_document_and_a_near_copy(old, data) -> None:
    """Most patches are between two close views: change a few members."""
    new = {**old}
    for key in data.draw(st.lists(keys, max_size=3)):
        if key in new and data.draw(st.booleans()):
            del new[key]
        else:
            new[key] = data.draw(values)
    check(old, new)


def test_types_are_kept_apart() -> None:
    # True == 1 in Python, but not in JSON
    check({"a": 1}, {"a": True})
    check({"a": [0, 1]}, {"a": [False, True]})


def test_many_small_changes_become_one_replace() -> None:
    """A roll changes most of ``scorable``: one replace of it (or of what
    holds it) is shorter than an operation per box."""
    old = {"version": 5, "game": {"turn": {"dice": [1, 2, 3, 4, 5], "rolls_left": 2, "scorable": {}}, "round": 3}}
    scorable = {box: i for i, box in enumerate(["ones", "twos", "threes", "fours", "fives", "sixes", "chance"])}
    new = {"version": 6, "game": {"turn": {"dice": [6, 2, 3, 4, 6], "rolls_left": 1, "scorable": scorable}, "round": 3}}
    ops = diff(old, new)
    assert {"op": "replace", "path": "/version", "value": 6} in ops
    assert {"op": "replace", "path": "/game/turn", "value": new["game"]["turn"]} in ops
    assert len(ops) == 2
    check(old, new)


def test_replace_all() -> None:
    assert jsonpatch.apply_patch({"a": 1}, replace_all({"b": 2})) == {"b": 2}
    assert apply_patch({"a": 1}, replace_all({"b": 2})) == {"b": 2}


def test_changes_stay_at_their_leaves() -> None:
    """A roll that keeps most of ``scorable``: each change at its own path
    (the leaf), not a replacement of the turn or of the game."""
    turn = {"player_id": "a", "dice": [1, 2, 3, 4, 5], "kept": [False] * 5, "rolls_left": 2}
    boxes = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_kind", "four_kind", "full_house"]
    scorable = {box: i for i, box in enumerate([*boxes, "small_straight", "large_straight", "yahtzee", "chance"])}
    old = {"version": 5, "game": {"round": 3, "turn": {**turn, "scorable": scorable}}}
    changed = {**scorable, "fives": 0, "sixes": 6}
    new = {
        "version": 6,
        "game": {
            "round": 3,
            "turn": {**turn, "dice": [1, 2, 3, 4, 6], "rolls_left": 1, "scorable": changed},
        },
    }
    ops = diff(old, new)
    assert [op["path"] for op in ops] == [
        "/version",
        "/game/turn/dice/4",
        "/game/turn/rolls_left",
        "/game/turn/scorable/fives",
        "/game/turn/scorable/sixes",
    ]
    check(old, new)
