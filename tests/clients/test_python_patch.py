"""The Python client's own RFC 6902 applier (dicecup_client.patch) on crafted
cases, against the jsonpatch library on generated ones, and on the server's
diffs; the room store's presence and subscriptions; the reconnect backoff."""

import asyncio
import copy
import random
from typing import Any

import jsonpatch
import pytest
from dicecup_client import Backoff, PatchError, RoomStore, apply_patch
from dicecup_client.patch import parse_pointer, resolve
from hypothesis import given
from hypothesis import strategies as st

from app.realtime.patch import diff

DOC = {"a": {"b": [1, 2, 3], "c/d": 4, "e~f": 5, "": 6}, "list": [{"x": 1}, {"x": 2}], "n": None}


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ([], DOC),
        ([{"op": "replace", "path": "/n", "value": 7}], {**DOC, "n": 7}),
        ([{"op": "add", "path": "/new", "value": {"k": [1]}}], {**DOC, "new": {"k": [1]}}),
        ([{"op": "add", "path": "/n", "value": 1}], {**DOC, "n": 1}),  # add over a member replaces it
        ([{"op": "remove", "path": "/n"}], {"a": DOC["a"], "list": DOC["list"]}),
        ([{"op": "replace", "path": "/a/c~1d", "value": 40}], {**DOC, "a": {**DOC["a"], "c/d": 40}}),
        ([{"op": "replace", "path": "/a/e~0f", "value": 50}], {**DOC, "a": {**DOC["a"], "e~f": 50}}),
        ([{"op": "replace", "path": "/a/", "value": 60}], {**DOC, "a": {**DOC["a"], "": 60}}),
        ([{"op": "add", "path": "/a/b/0", "value": 0}], {**DOC, "a": {**DOC["a"], "b": [0, 1, 2, 3]}}),
        ([{"op": "add", "path": "/a/b/3", "value": 4}], {**DOC, "a": {**DOC["a"], "b": [1, 2, 3, 4]}}),
        ([{"op": "add", "path": "/a/b/-", "value": 4}], {**DOC, "a": {**DOC["a"], "b": [1, 2, 3, 4]}}),
        ([{"op": "remove", "path": "/a/b/1"}], {**DOC, "a": {**DOC["a"], "b": [1, 3]}}),
        ([{"op": "replace", "path": "/list/1/x", "value": 9}], {**DOC, "list": [{"x": 1}, {"x": 9}]}),
        ([{"op": "replace", "path": "", "value": [1, 2]}], [1, 2]),
        ([{"op": "add", "path": "", "value": {"z": 1}}], {"z": 1}),
        (  # a whole-room replace, then edits on the new document
            [{"op": "replace", "path": "", "value": {"v": 1}}, {"op": "replace", "path": "/v", "value": 2}],
            {"v": 2},
        ),
        ([{"op": "test", "path": "/a/b", "value": [1, 2, 3]}], DOC),
        ([{"op": "copy", "from": "/a/b", "path": "/b2"}], {**DOC, "b2": [1, 2, 3]}),
        ([{"op": "move", "from": "/n", "path": "/m"}], {"a": DOC["a"], "list": DOC["list"], "m": None}),
    ],
)
def test_crafted_patches(patch, expected) -> None:
    before = copy.deepcopy(DOC)
    assert apply_patch(DOC, patch) == expected
    assert jsonpatch.apply_patch(DOC, patch) == expected  # the reference implementation agrees
    assert before == DOC  # the input is never changed


@pytest.mark.parametrize(
    "patch",
    [
        [{"op": "replace", "path": "/missing", "value": 1}],
        [{"op": "remove", "path": "/missing"}],
        [{"op": "remove", "path": ""}],
        [{"op": "add", "path": "/missing/child", "value": 1}],
        [{"op": "add", "path": "/a/b/4", "value": 1}],  # past the end
        [{"op": "replace", "path": "/a/b/3", "value": 1}],
        [{"op": "replace", "path": "/a/b/01", "value": 1}],  # leading zero
        [{"op": "replace", "path": "/a/b/-1", "value": 1}],
        [{"op": "replace", "path": "/a/b/-", "value": 1}],
        [{"op": "replace", "path": "a", "value": 1}],  # not a pointer
        [{"op": "replace", "path": "/a/x~2", "value": 1}],  # bad escape
        [{"op": "replace", "path": "/n/x", "value": 1}],  # through a scalar
        [{"op": "add", "path": "/x"}],  # no value
        [{"op": "frobnicate", "path": "/n"}],
        [{"op": "test", "path": "/n", "value": 0}],
        [{"op": "test", "path": "/a/b/0", "value": True}],  # 1 is not true in JSON
        [{"op": "move", "from": "/a", "path": "/a/b/0"}],  # into itself
        [{"op": "replace", "path": "/n", "value": 1}, {"op": "remove", "path": "/missing"}],
    ],
)
def test_patches_that_do_not_apply(patch) -> None:
    before = copy.deepcopy(DOC)
    with pytest.raises(PatchError):
        apply_patch(DOC, patch)
    assert before == DOC  # all or nothing: the holder keeps its document


def test_pointers() -> None:
    assert parse_pointer("") == []
    assert parse_pointer("/") == [""]
    assert parse_pointer("/a~1b/c~0d/~01") == ["a/b", "c~d", "~1"]  # ~1 first, then ~0
    assert resolve(DOC, "/a/c~1d") == 4
    assert resolve(DOC, "/list/1/x") == 2
    assert resolve(DOC, "") is DOC


def test_unchanged_parts_are_shared() -> None:
    """Path copying: a patch copies the containers on its path only."""
    new = apply_patch(DOC, [{"op": "replace", "path": "/list/0/x", "value": 5}])
    assert new["a"] is DOC["a"]  # untouched: shared
    assert new["list"] is not DOC["list"] and new["list"][1] is DOC["list"][1]
    assert DOC["list"][0] == {"x": 1}


scalars = st.none() | st.booleans() | st.integers(-5, 300) | st.text(max_size=4)
keys = st.sampled_from(["a", "b", "c/d", "e~f", "", "0", "-", "turn"])
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=20
)
documents = st.dictionaries(keys, values, max_size=5)


@given(documents, documents)
def test_the_servers_diffs(old, new) -> None:
    """Whatever the server's diff makes (app/realtime/patch.py), the client applies to the new document."""
    assert apply_patch(old, diff(old, new)) == new


@given(documents, documents)
def test_same_as_the_reference_implementation(old, new) -> None:
    """jsonpatch's own diff (other operations, list insertions and moves
    included) applies the same with both implementations."""
    ops = jsonpatch.make_patch(old, new).patch
    assert apply_patch(old, ops) == jsonpatch.apply_patch(old, ops) == new


async def test_store_presence_and_subscriptions() -> None:
    store = RoomStore()
    room = {
        "version": 3,
        "players": [{"id": "a", "connected": False}, {"id": "b", "connected": True}],
    }
    store.reset(room)  # type: ignore[arg-type]
    seen, presence = [], []
    unsubscribe = store.subscribe(lambda event, r: seen.append((event["version"], r["version"])))
    store.subscribe_presence(lambda player, connected, r: presence.append((player, connected)))
    store.presence("a", True)
    assert store.room["players"][0]["connected"] is True and room["players"][0]["connected"] is False
    waiter = asyncio.ensure_future(store.wait_for(lambda r: r["version"] >= 5, 5))
    iterator = store.events()
    first = asyncio.ensure_future(anext(iterator))
    await asyncio.sleep(0)
    for version in (3, 4, 5, 5):  # 3 was in the welcome's room, the second 5 is a duplicate
        event = {"version": version, "type": "kept", "player_id": "a", "data": {"kept": [True] * 5}, "at": ""}
        store.apply(event, patch=[{"op": "replace", "path": "/version", "value": max(version, store.version)}])
    assert seen == [(4, 4), (5, 5)]
    assert (await first)[0]["version"] == 4
    assert (await waiter)["version"] == 5
    unsubscribe()
    store.close()
    assert [event["version"] async for event, _ in iterator] == [5]
    assert presence == [("a", True)]


def test_backoff_grows_with_jitter_and_a_ceiling() -> None:
    backoff = Backoff(initial=0.25, factor=2, maximum=10, jitter=0.5, rng=random.Random(1))
    for attempt in range(12):
        cap = min(10, 0.25 * 2**attempt)
        delays = {backoff.delay(attempt) for _ in range(50)}
        assert all(cap / 2 <= d <= cap for d in delays)
        assert len(delays) > 1  # jittered
    assert backoff.delay(10_000) <= 10


def test_store_puts_back_the_data_protocol_2_leaves_out() -> None:
    """turn_started, kept and rolled come without data when the patched room
    is at their version: subscribers get them with it, read from the room."""
    turn = {"player_id": "b", "dice": None, "kept": [False] * 5, "rolls_left": 3, "scorable": {}}
    store = RoomStore()
    store.reset({"version": 4, "players": [], "game": {"round": 2, "turn": turn, "deadline": None}})  # type: ignore[arg-type, typeddict-item]
    seen = []
    store.subscribe(lambda event, room: seen.append(event["data"]))

    def bare(version: int, kind: str) -> Any:
        return {"version": version, "type": kind, "player_id": "b", "at": ""}

    store.apply(bare(5, "turn_started"), patch=[{"op": "replace", "path": "/version", "value": 5}])
    store.apply(
        bare(6, "rolled"),
        patch=[
            {"op": "replace", "path": "/version", "value": 6},
            {"op": "replace", "path": "/game/turn/dice", "value": [3, 3, 1, 2, 6]},
            {"op": "replace", "path": "/game/turn/rolls_left", "value": 2},
        ],
    )
    store.apply(
        bare(7, "kept"),
        patch=[
            {"op": "replace", "path": "/version", "value": 7},
            {"op": "replace", "path": "/game/turn/kept", "value": [True, True, False, False, False]},
        ],
    )
    with_data = {**bare(8, "rolled"), "data": {"dice": [3, 3, 3, 3, 3], "kept": [True] * 5, "rolls_left": 0}}
    store.apply(with_data, patch=[{"op": "replace", "path": "/version", "value": 9}])  # data as it came
    assert seen == [
        {"player_id": "b", "round": 2, "deadline": None},
        {"dice": [3, 3, 1, 2, 6], "kept": [False] * 5, "rolls_left": 2},
        {"kept": [True, True, False, False, False]},
        with_data["data"],
    ]
    # without data, and the room is not at the event's version: refused, not delivered bare
    with pytest.raises(ValueError, match="no data"):
        store.apply(bare(10, "kept"), patch=[{"op": "replace", "path": "/version", "value": 11}])
    assert len(seen) == 4 and store.last_event == 8
