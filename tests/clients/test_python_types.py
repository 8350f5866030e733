"""The Python client's names for the protocol's shapes (``dicecup_client.types``)
are the shapes of its JSON Schema (``GET /api/protocol.json``) and of
``/openapi.json``: generated ones under the SDK's names, and the few written
by hand (the REST answers whose events the SDK types as the protocol does)
with the same keys. tests/clients/test_sdk_types.py checks that the generated
modules are what the documents give."""

import typing

import dicecup_client.types as t
import pytest
from dicecup_client import FATAL_CLOSE_CODES, CloseCode, ErrorCode

from app.api.protocol import protocol_document
from app.main import create_app

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


@pytest.mark.parametrize(("ours", "theirs"), {"ActionResult": "ActionOut", "EventsPage": "EventsOut"}.items())
def test_the_rest_answers_written_by_hand_have_the_documents_keys(ours, theirs) -> None:
    typed = getattr(t, ours)
    schema = create_app().openapi()["components"]["schemas"][theirs]
    assert typed.__required_keys__ == set(schema["properties"]) == set(schema["required"])
    assert not typed.__optional_keys__


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
    names = dict(zip(defs()["CloseCode"]["enum"], defs()["CloseCode"]["x-enum-varnames"], strict=True))
    assert all(CloseCode[name] == code for code, name in names.items())
    assert CloseCode.KEEPALIVE == CloseCode.KEEPALIVE_TIMEOUT == 1011 and CloseCode.NORMAL == 1000
    assert {code.value for code in ErrorCode} == set(defs()["ErrorCode"]["enum"])
    # the codes the protocol says not to reconnect after, as the same client
    assert {4404, 4401, 4403, 4409, 4429, 4400, 1008, 1009} == set(FATAL_CLOSE_CODES)
