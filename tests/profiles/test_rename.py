"""Renaming a profile (PATCH /api/profiles/me): the new name is the profile's
and the boards', seats keep theirs; bad input changes nothing."""

from __future__ import annotations

from .test_profiles import auth, game, new_profile


async def test_rename_the_profile(client) -> None:
    pid, token = await new_profile(client, "Ana")
    code, _, _ = await game(client, "yacht", [token])  # a solo game: on the best board
    r = await client.patch("/api/profiles/me", json={"name": "  Ana K  "}, headers=auth(token))
    assert r.status_code == 200, r.text
    assert r.json()["id"] == pid and r.json()["name"] == "Ana K" and r.json()["username"] is None
    assert (await client.get(f"/api/profiles/{pid}")).json()["name"] == "Ana K"
    board = (await client.get("/api/leaderboards/yacht", params={"limit": 100})).json()["entries"]
    assert [e["name"] for e in board if e["profile_id"] == pid] == ["Ana K"]
    # the seat keeps the name it was taken with
    assert [p["name"] for p in (await client.get(f"/api/rooms/{code}")).json()["players"]] == ["P0"]


async def test_bad_renames_change_nothing(client, app_settings) -> None:
    _, token = await new_profile(client, "Ana")
    # a profile's name follows a seat's rules (docs/api.md, Names): per-field codes
    for body, code in (
        ({"name": ""}, "name_empty"),
        ({"name": "   "}, "name_empty"),
        ({"name": "x" * 33}, "name_too_long"),
        ({"name": "a\u0007b"}, "name_invalid"),
        ({"name": "a\u202eb"}, "name_invalid"),
        ({}, "invalid_request"),
        ({"name": "B", "x": 1}, "invalid_request"),
    ):
        r = await client.patch("/api/profiles/me", json=body, headers=auth(token))
        assert r.status_code == 422 and r.json()["code"] == code, (body, r.text)
    r = await client.patch("/api/profiles/me", json={"name": "Ben"})
    assert r.status_code == 401 and r.json()["code"] == "unauthorized"
    r = await client.patch("/api/profiles/me", json={"name": "Ben"}, headers=auth("not-a-token"))
    assert r.status_code == 401
    big = '{"name": "' + "x" * app_settings.max_body_bytes + '"}'
    r = await client.patch("/api/profiles/me", content=big, headers={**auth(token), "content-type": "application/json"})
    assert r.status_code == 413
    assert (await client.get("/api/profiles/me", headers=auth(token))).json()["name"] == "Ana"
