"""Post-game analysis: every decision of every seat against solitaire-optimal play.

A game's events are replayed (pure: no database, no I/O). Each decision is
valued by the strategy tables: after a roll with rolls left, which dice the
player kept before rolling again (or that they scored instead); after any
roll, which box they filled. The ``ev`` of a choice is the expected final
total of the player's own scorecard if they make it and then play optimally
for solitaire (the same figure hints show); the loss of a decision is the
best choice's ``ev`` minus the chosen one's, so an optimal player loses 0 and
the losses of a seat add up to how much its choices cost in expectation.
A seat that resigned is valued up to its resignation: the autopilot's moves
for it afterwards are not its player's decisions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.rules import Scorecard, get_ruleset
from app.strategy import Advisor, BoxChoice, KeepChoice, multisets
from app.strategy.advisor import Choice, TurnPlan

JSON = dict[str, Any]

OPTIMAL_WITHIN = 1e-6
"""A decision within this many points of the best one counts as optimal (ties are exact)."""
WORST_SHOWN = 3


@dataclass
class _Turn:
    player: str
    round: int
    card: Scorecard
    plan: TurnPlan | None = None
    dice: tuple[int, ...] | None = None
    rolls_left: int = 3
    roll: int = 0


@dataclass
class _Seat:
    decisions: list[JSON] = field(default_factory=list)


def _best_json(choice: Choice) -> JSON:
    if isinstance(choice, BoxChoice):
        return {"type": "score", "box": choice.box, "points": choice.points}
    return {"type": "keep", "values": list(choice.values)}


def review(
    ruleset: str,
    order: Sequence[str],
    events: Iterable[Mapping[str, Any]],
    advisor: Advisor,
) -> JSON:
    """The analysis of one finished game from its events (``game_started`` to
    ``game_finished``, as stored: ``type``, ``player_id``, ``data``)."""
    rules = get_ruleset(ruleset)
    cards = {player: Scorecard.empty(rules.boxes) for player in order}
    seats = {player: _Seat() for player in order}
    turn: _Turn | None = None
    rounds: dict[str, int] = dict.fromkeys(order, 0)
    resigned: set[str] = set()

    def evaluate(kind: str, chosen: Choice, chosen_json: JSON) -> None:
        assert turn is not None and turn.dice is not None
        if turn.player in resigned:
            return  # the autopilot's move, not the player's
        advice = advisor.advise(turn.card, turn.dice, turn.rolls_left, _plan(turn))
        best = advice.best
        loss = max(0.0, best.ev - chosen.ev)
        seats[turn.player].decisions.append(
            {
                "player_id": turn.player,
                "round": turn.round,
                "roll": turn.roll,
                "dice": list(turn.dice),
                "rolls_left": turn.rolls_left,
                "kind": kind,
                "choice": chosen_json,
                "ev": round(chosen.ev, 4),
                "best": _best_json(best),
                "best_ev": round(best.ev, 4),
                "loss": round(loss, 4),
            }
        )

    def _plan(t: _Turn) -> TurnPlan:
        if t.plan is None:
            t.plan = advisor.plan([t.card])
        return t.plan

    for event in events:
        kind, player, data = event["type"], event.get("player_id"), event.get("data") or {}
        if kind == "player_resigned":
            resigned.add(data["player_id"])
        elif kind == "turn_started":
            player = data["player_id"]
            rounds[player] += 1
            turn = _Turn(player, rounds[player], cards[player])
        elif kind == "rolled" and turn is not None:
            if turn.dice is not None:
                kept = tuple(sorted(turn.dice[i] for i, k in enumerate(data["kept"]) if k))
                if len(kept) == 5:  # rolling none again: holding all five one roll less
                    plan = _plan(turn)
                    value = float(plan.keep_values[turn.rolls_left][multisets.keep_index(kept), 0])
                    chosen: Choice = KeepChoice((0, 1, 2, 3, 4), kept, rules.totals(turn.card).total + value)
                else:
                    keeps = advisor.keep_choices(turn.card, turn.dice, turn.rolls_left, _plan(turn))
                    chosen = next(k for k in keeps if k.values == kept)
                evaluate("keep", chosen, {"type": "keep", "values": list(kept)})
            turn.dice = tuple(data["dice"])
            turn.rolls_left = int(data["rolls_left"])
            turn.roll += 1
        elif kind == "scored" and turn is not None and turn.dice is not None:
            box = data["box"]
            boxes = advisor.box_choices(turn.card, turn.dice)
            chosen = next(b for b in boxes if b.box == box)
            evaluate("score", chosen, {"type": "score", "box": box, "points": int(data["points"])})
            cards[turn.player] = turn.card.with_score(box, int(data["points"]), int(data.get("yahtzee_bonus", 0)))
            turn = None

    out_seats = []
    every: list[JSON] = []
    for player in order:
        decisions = seats[player].decisions
        every.extend(decisions)
        losses = [d["loss"] for d in decisions]
        optimal = sum(1 for d in decisions if d["loss"] <= OPTIMAL_WITHIN)
        worst = sorted((d for d in decisions if d["loss"] > OPTIMAL_WITHIN), key=lambda d: -d["loss"])[:WORST_SHOWN]
        out_seats.append(
            {
                "player_id": player,
                "total": rules.totals(cards[player]).total,
                "decisions": len(decisions),
                "optimal_decisions": optimal,
                "accuracy": round(100.0 * optimal / len(decisions), 1) if decisions else 100.0,
                "total_loss": round(sum(losses), 4),
                "mean_loss": round(sum(losses) / len(losses), 4) if losses else 0.0,
                "worst": worst,
                "resigned": player in resigned,
            }
        )
    return {
        "ruleset": ruleset,
        "optimal_expected": round(float(advisor.table.reshape(-1)[0]), 4),
        "seats": out_seats,
        "decisions": every,
    }
