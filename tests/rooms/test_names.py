"""Player names (app.rooms.names, docs/api.md "Names"): one normal form, per-field
refusals, grapheme clusters counted, no two seats of a room with one name (on
both databases, racing joins included)."""

import asyncio

import httpx
import pytest

from app.rooms.errors import DomainError
from app.rooms.names import MAX_GRAPHEMES, graphemes, normalize_name

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one grapheme, five code points


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("  Ana  ", "Ana"),
        ("Ana\n\tMaria", "Ana Maria"),
        ("Ana\u00a0\u3000 B", "Ana B"),  # no-break and ideographic spaces are whitespace
        ("e\u0301", "\u00e9"),  # NFC
        (f"{FAMILY} Ana", f"{FAMILY} Ana"),
        ("x" * MAX_GRAPHEMES, "x" * MAX_GRAPHEMES),
        ("\u0a95\u0acd\u0ab7" * 10, "\u0a95\u0acd\u0ab7" * 10),  # Gujarati conjuncts: one cluster each
        ("Ana\u200cB", "Ana\u200cB"),  # a joiner inside a name stays
    ],
)
def test_names_are_normalized(raw: str, name: str) -> None:
    assert normalize_name(raw) == name


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "name_empty"),
        ("   \n ", "name_empty"),
        ("\u0301\u0301", "name_empty"),  # marks only: nothing to see
        ("x" * (MAX_GRAPHEMES + 1), "name_too_long"),
        ("x" * 300, "name_too_long"),
        (FAMILY * 13, "name_too_long"),  # 13 clusters, but 65 code points: more than the column holds
        ("\u200b", "name_invalid"),  # zero-width space
        ("Ana\u200bB", "name_invalid"),
        ("Ana\u202eB", "name_invalid"),  # a bidirectional override
        ("Ana\x00", "name_invalid"),
        ("Ana\x07B", "name_invalid"),
        ("\u3164", "name_invalid"),  # Hangul filler, a letter that draws nothing
        ("\u200dAna", "name_invalid"),
        ("Ana\ue000", "name_invalid"),  # private use
    ],
)
def test_bad_names_are_refused_with_their_code(raw: str, code: str) -> None:
    with pytest.raises(DomainError) as refused:
        normalize_name(raw)
    assert refused.value.code == code and refused.value.status == 422
    assert refused.value.errors[0]["loc"] == ["body", "name"]  # type: ignore[attr-defined]


def test_a_family_emoji_counts_once() -> None:
    assert graphemes(FAMILY) == 1
    assert normalize_name(FAMILY * 12) == FAMILY * 12  # 12 clusters, 60 code points


async def test_the_api_refuses_per_field_and_stores_the_normal_form(client: httpx.AsyncClient) -> None:
    for raw, code in [("   ", "name_empty"), ("a\u200bb", "name_invalid"), ("y" * 40, "name_too_long")]:
        response = await client.post("/api/rooms", json={"ruleset": "yacht", "name": raw})
        assert response.status_code == 422, response.text
        body = response.json()
        assert body["code"] == code and body["errors"][0]["loc"] == ["body", "name"]
    created = await client.post("/api/rooms", json={"ruleset": "yacht", "name": " Ana\n  Maria ", "max_players": 4})
    assert created.status_code == 201
    code = created.json()["room"]["code"]
    assert created.json()["player"]["name"] == "Ana Maria"
    for name in ("Ana Maria", "ANA  maria", "ana maria\t"):
        taken = await client.post(f"/api/rooms/{code}/players", json={"name": name})
        assert taken.status_code == 409 and taken.json()["code"] == "name_taken", taken.text
    joined = await client.post(f"/api/rooms/{code}/players", json={"name": "Beginner bot"})
    assert joined.status_code == 201
    bot = await client.post(
        f"/api/rooms/{code}/bots",
        json={"level": "beginner"},
        headers={"authorization": f"Bearer {created.json()['token']}"},
    )
    assert bot.status_code == 201, bot.text
    names = [p["name"] for p in (await client.get(f"/api/rooms/{code}")).json()["players"]]
    assert names == ["Ana Maria", "Beginner bot", "Beginner bot 2"]


async def test_two_joins_racing_for_one_name_one_wins(client: httpx.AsyncClient) -> None:
    created = await client.post("/api/rooms", json={"ruleset": "yacht", "name": "Ana", "max_players": 8})
    code = created.json()["room"]["code"]
    answers = await asyncio.gather(*(client.post(f"/api/rooms/{code}/players", json={"name": "Ben"}) for _ in range(6)))
    assert sorted(a.status_code for a in answers) == [201] + [409] * 5
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"name_taken"}
    names = [p["name"] for p in (await client.get(f"/api/rooms/{code}")).json()["players"]]
    assert names == ["Ana", "Ben"]
