"""The web client's fair-dice check (app/web/static/js/fair.js) in Node's
WebCrypto: tests/web/fair.test.mjs, on the docs/api.md test vector and on
real games made by app.rules and checked by app.rules.verify_game, each also
with one die changed. Skips without Node 20 (the browser test of the replay
page runs the same module in Chromium)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from app.rules import FairDice, FairnessError, new_game, verify_game

from ..rules.play import play_out
from ..services import unavailable

HERE = Path(__file__).parent


def game(ruleset: str, seats: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    dice = FairDice(rng.randbytes(32))
    start = new_game(ruleset, [f"p{i}" for i in range(seats)], dice)
    _, events = play_out(start.state, dice, rng)
    numbered = [
        {"version": v, "type": e.type, "player_id": None, "data": e.data()}
        for v, e in enumerate((*start.events, *events), 1)
    ]
    tampered = json.loads(json.dumps(numbered))
    rolled = [e for e in tampered if e["type"] == "rolled"]
    target = rolled[rng.randrange(len(rolled))]
    position = next(i for i in range(5) if not target["data"]["kept"][i])
    target["data"]["dice"][position] = target["data"]["dice"][position] % 6 + 1
    with pytest.raises(FairnessError):
        verify_game(dice.seed_hex, tampered)
    return {
        "seed": dice.seed_hex,
        "events": numbered,
        "rolls": verify_game(dice.seed_hex, numbered),
        "tampered": tampered,
        "tampered_version": target["version"],
    }


def test_the_browser_check_agrees_with_app_rules(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed: the fair-dice check's JavaScript test skipped")
    assert node is not None
    games = [
        game(ruleset, seats, seed) for seed, (ruleset, seats) in enumerate([("yahtzee", 3), ("yacht", 1), ("yatzy", 2)])
    ]
    path = tmp_path / "games.json"
    path.write_text(json.dumps(games))
    done = subprocess.run(
        [node, "--test", str(HERE / "fair.test.mjs")],
        capture_output=True,
        text=True,
        timeout=120,
        env={"DICECUP_FAIR_GAMES": str(path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout, done.stdout
