"""Build positions for rules tests without playing up to them."""

from dataclasses import replace
from types import MappingProxyType

from app.rules import GameState, Scorecard, ScriptedDice, Turn, get_ruleset, new_game


def position(
    ruleset: str,
    filled: dict[str, int] | None = None,
    dice: tuple[int, ...] | None = None,
    options: dict[str, object] | None = None,
    rolls_left: int = 2,
    yahtzee_bonus: int = 0,
    player: str = "ana",
) -> GameState:
    """A one-player game whose scorecard holds ``filled``, with ``dice`` on the table."""
    state = new_game(ruleset, [player], ScriptedDice([1] * 5), options).state
    rules = get_ruleset(ruleset)
    boxes = dict.fromkeys(rules.boxes)
    boxes.update(filled or {})
    card = Scorecard(MappingProxyType(boxes), yahtzee_bonus)
    turn = Turn(player, dice, (False,) * 5, rolls_left if dice is not None else 3)
    return replace(state, scorecards=MappingProxyType({player: card}), turn=turn, round=len(filled or {}) + 1)
