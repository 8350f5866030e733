"""An independent scorer, written apart from the engine and in another style:
every box is a predicate on the sorted faces plus a points formula, with no
shared helpers. It produced ``golden_scores.json``; regenerate with

    python -m tests.rules.golden_scorer > tests/rules/golden_scores.json
"""

import itertools
import json
import sys


def _faces(dice):
    return "".join(str(d) for d in sorted(dice))


def _count_sig(dice):
    # e.g. 2-2-2-5-5 -> "32": multiplicities, largest first
    return "".join(str(dice.count(f)) for f in sorted(set(dice), key=lambda f: -dice.count(f)))


def yahtzee_table(dice):
    dice = list(dice)
    sig = _count_sig(dice)
    s = "".join(sorted(set(_faces(dice))))
    total = sum(dice)
    row = {
        name: dice.count(face) * face
        for face, name in enumerate(["ones", "twos", "threes", "fours", "fives", "sixes"], start=1)
    }
    row["three_of_a_kind"] = total if sig[0] in "345" else 0
    row["four_of_a_kind"] = total if sig[0] in "45" else 0
    row["full_house"] = 25 if sig == "32" else 0
    row["small_straight"] = 30 if any(run in s for run in ("1234", "2345", "3456")) else 0
    row["large_straight"] = 40 if s in ("12345", "23456") else 0
    row["yahtzee"] = 50 if sig == "5" else 0
    row["chance"] = total
    return row


def yacht_table(dice):
    dice = list(dice)
    sig = _count_sig(dice)
    f = _faces(dice)
    total = sum(dice)
    row = {
        "yacht": 50 if sig == "5" else 0,
        "big_straight": 30 if f == "23456" else 0,
        "little_straight": 30 if f == "12345" else 0,
        "four_of_a_kind": total if sig[0] in "45" else 0,
        "full_house": total if sig == "32" else 0,
        "choice": total,
    }
    for face, name in ((6, "sixes"), (5, "fives"), (4, "fours"), (3, "threes"), (2, "twos"), (1, "ones")):
        row[name] = face * dice.count(face)
    return row


def yatzy_table(dice):
    # Scandinavian Yatzy, from the multiplicities: a face counts for a pair
    # if it shows at least twice, for a set if at least three (four) times.
    dice = list(dice)
    f = _faces(dice)
    total = sum(dice)
    shown = {face: dice.count(face) for face in set(dice)}
    pairs = sorted((face for face, n in shown.items() if n >= 2), reverse=True)
    row = {
        name: face * dice.count(face)
        for face, name in enumerate(["ones", "twos", "threes", "fours", "fives", "sixes"], start=1)
    }
    row["one_pair"] = pairs[0] * 2 if pairs else 0
    row["two_pairs"] = (pairs[0] + pairs[1]) * 2 if len(pairs) > 1 else 0
    row["three_of_a_kind"] = max([face * 3 for face, n in shown.items() if n >= 3], default=0)
    row["four_of_a_kind"] = max([face * 4 for face, n in shown.items() if n >= 4], default=0)
    row["small_straight"] = 15 if f == "12345" else 0
    row["large_straight"] = 20 if f == "23456" else 0
    row["full_house"] = total if sorted(shown.values()) == [2, 3] else 0
    row["chance"] = total
    row["yatzy"] = 50 if len(shown) == 1 else 0
    return row


def all_rolls():
    """The 252 distinct rolls of five dice, as sorted tuples."""
    return list(itertools.combinations_with_replacement(range(1, 7), 5))


def table():
    return {
        "yahtzee": {_faces(r): yahtzee_table(r) for r in all_rolls()},
        "yacht": {_faces(r): yacht_table(r) for r in all_rolls()},
        "yatzy": {_faces(r): yatzy_table(r) for r in all_rolls()},
    }


if __name__ == "__main__":
    json.dump(table(), sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")
