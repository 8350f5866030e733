"""The boardgame.io side of the bench (bench/bgio): a few seconds of
``python -m bench.bgio``, and boardgame.io's game scoring as ``app.rules``
does. Needs Node.js and npm (the first run installs boardgame.io into
bench/bgio/node_modules); skipped without them, a failure under
``DICECUP_TEST_STRICT=1``. No timings are asserted here."""

import json
import random
import shutil
import subprocess
from itertools import product
from typing import Any

import pytest

from app.rules import RULESETS, Scorecard
from bench.bgio import scenario

from ..services import unavailable


@pytest.fixture(scope="module")
def node() -> str:
    if shutil.which("node") is None or shutil.which("npm") is None:
        unavailable("Node.js and npm are not on the PATH: the boardgame.io bench tests skipped")
    path, npm = scenario.tools()
    scenario.install(npm)
    return path


def test_side_by_side(node: str) -> None:
    args = scenario.build_parser().parse_args(["--rooms", "3", "--seats", "2", "--spectators", "1"])
    result = scenario.scenario(args)
    for side in ("dicecup", "boardgame_io"):
        report = result[side]
        assert report["anomalies"] == [] and report["errors"] == {}, report
        assert report["games_finished"] == report["games"] == 3
        assert report["actions"] > 0 and report["cpu_ms_per_action"]["server"] > 0
    theirs = result["boardgame_io"]
    assert theirs["replayed_through_app_rules"] == {"games": 3, "agreed": 3, "problems": []}
    # every move reached the mover and the two other members (a seat and the spectator)
    assert theirs["update_ms"]["count"] == theirs["actions"] and theirs["fanout_ms"]["count"] == 2 * theirs["actions"]
    assert result["side_by_side"]["server_cpu_ms_per_action"]["dicecup_over_boardgame_io"] is not None


# Asked of bench/bgio/game.js for each case: per box, may it be filled, its points and plain
# score; the bonus; the total.
ASK = """
const { RULES, total } = require('./game');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const answers = cases.map(({ ruleset, card, dice }) => {
  const rules = RULES[ruleset];
  const boxes = rules.boxes.map((box) => [
    rules.allowed(card, box, dice), rules.points(card, box, dice), rules.score(box, dice),
  ]);
  return { boxes, bonus: rules.bonus(card, dice), total: total(rules, card) };
});
process.stdout.write(JSON.stringify(answers));
"""


def random_card(rng: random.Random, boxes: tuple[str, ...]) -> dict[str, Any]:
    """About half the boxes filled (with any points; the Yahtzee box with 0 or 50, which makes Jokers)."""
    filled: dict[str, int | None] = {}
    for box in boxes:
        if rng.random() < 0.5:
            filled[box] = None
        elif box == "yahtzee":
            filled[box] = rng.choice([0, 50])
        else:
            filled[box] = rng.choice([0, rng.randint(1, 30)])
    return {"boxes": filled, "bonus": rng.choice([0, 0, 100, 200])}


def test_game_scores_as_app_rules(node: str) -> None:
    rng = random.Random(28)
    cases: list[dict[str, Any]] = []
    for name in ("yacht", "yahtzee"):
        boxes = RULESETS[name].boxes
        for dice in product(range(1, 7), repeat=5):  # every roll on an empty card
            cases.append({"ruleset": name, "card": {"boxes": dict.fromkeys(boxes), "bonus": 0}, "dice": list(dice)})
        for _ in range(3000):  # part-filled cards, half of them with five of a kind (the Jokers)
            face = rng.randint(1, 6)
            dice = (face,) * 5 if rng.random() < 0.5 else tuple(rng.randint(1, 6) for _ in range(5))
            cases.append({"ruleset": name, "card": random_card(rng, boxes), "dice": list(dice)})
    answers = json.loads(
        subprocess.run(
            [node, "-e", ASK], input=json.dumps(cases), capture_output=True, text=True, check=True, cwd=scenario.FOLDER
        ).stdout
    )
    for case, answer in zip(cases, answers, strict=True):
        rules = RULESETS[case["ruleset"]]
        options = rules.normalize_options(None)
        card = Scorecard(case["card"]["boxes"], case["card"]["bonus"])
        dice = tuple(case["dice"])
        expected = [
            [rules.refusal(card, box, dice, options) is None, None, rules.score(box, dice)] for box in rules.boxes
        ]
        for box, row in zip(rules.boxes, expected, strict=True):
            row[1] = rules.points(card, box, dice, options) if row[0] else None
        got = [[allowed, points if allowed else None, plain] for allowed, points, plain in answer["boxes"]]
        assert got == expected, case
        assert answer["bonus"] == rules.bonus(card, dice, options), case
        assert answer["total"] == rules.totals(card).total, case
