"""The Python client's types mirror the protocol's JSON Schema
(``GET /api/protocol.json``): the same members in every shape, the same
event types, close codes and error codes."""

import typing

import dicecup_client.types as t
import pytest
from dicecup_client import FATAL_CLOSE_CODES, CloseCode, ErrorCode

from app.api.protocol import protocol_document

PAIRS = {
    # client TypedDict: the schema's $defs name
    "Player": "PlayerOut",
    "Turn": "TurnOut",
    "Scorecard": "ScorecardOut",
    "RolloffEntry": "RolloffEntryOut",
    "Fairness": "FairnessOut",
    "Game": "GameOut",
    "GameSummary": "GameSummary",
    "RoomOptions": "RoomOptions",
    "Room": "RoomOut",
    "RollAction": "RollAction",
    "KeepAction": "KeepAction",
    "ScoreAction": "ScoreAction",
    "PlayerData": "PlayerData",
    "RoomClosedData": "RoomClosedData",
    "GameStartedData": "GameStartedData",
    "TurnStartedData": "TurnStartedData",
    "KeptData": "KeptData",
    "RolledData": "RolledData",
    "ScoredData": "ScoredData",
    "GameFinishedData": "GameFinishedData",
    "PlayerJoined": "PlayerJoined",
    "PlayerLeft": "PlayerLeft",
    "RoomClosed": "RoomClosed",
    "GameStarted": "GameStarted",
    "TurnStarted": "TurnStarted",
    "Kept": "KeptEvent",
    "Rolled": "Rolled",
    "Scored": "Scored",
    "GameFinished": "GameFinished",
    "TurnStartedV2": "TurnStartedV2",
    "KeptV2": "KeptEventV2",
    "RolledV2": "RolledV2",
    "Welcome": "Welcome",
    "EventMessageV1": "EventV1",
    "EventMessageV2": "EventV2",
    "Presence": "Presence",
    "Ack": "Ack",
    "SocketError": "SocketError",
    "Pong": "Pong",
}


def defs() -> dict:
    return protocol_document()["$defs"]


@pytest.mark.parametrize(("ours", "theirs"), PAIRS.items())
def test_each_shape_has_the_schemas_members(ours, theirs) -> None:
    typed = getattr(t, ours)
    keys = typed.__required_keys__ | typed.__optional_keys__
    schema = defs()[theirs]
    assert keys == set(schema["properties"]), ours
    # what the schema requires, we require; what we require, the schema does
    assert set(schema.get("required", [])) == typed.__required_keys__, ours


def test_patch_operations() -> None:
    keys = t.PatchOp.__required_keys__ | t.PatchOp.__optional_keys__
    assert set(defs()["PatchOp"]["properties"]) <= keys


def test_every_event_type() -> None:
    mapping = defs()["EventV2"]["properties"]["event"]["discriminator"]["mapping"]
    assert set(mapping) == set(t.EVENT_TYPES)
    union = {typing.get_args(typing.get_type_hints(typed)["type"])[0] for typed in typing.get_args(t.Event)}
    assert union == set(t.EVENT_TYPES)
    on_v2 = {typing.get_args(typing.get_type_hints(typed)["type"])[0] for typed in typing.get_args(t.EventV2)}
    assert on_v2 == set(t.EVENT_TYPES)
    compact = {name for name, ref in mapping.items() if "data" not in defs()[ref.rsplit("/", 1)[1]]["required"]}
    assert compact == set(t.COMPACT_EVENT_TYPES)


def test_close_and_error_codes() -> None:
    assert set(defs()["CloseCode"]["enum"]) <= {int(code) for code in CloseCode}
    assert {code.value for code in ErrorCode} == set(defs()["ErrorCode"]["enum"])
    # the codes the protocol says not to reconnect after, as the same client
    assert {4404, 4401, 4403, 4409, 4429, 4400, 1008, 1009} == set(FATAL_CLOSE_CODES)
