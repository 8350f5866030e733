"""Starting a game and applying actions: the one place the rules are enforced.

Both functions are pure apart from asking the injected dice source for values:
they take an immutable :class:`GameState` and return a new one together with
the events that happened, or raise :class:`RuleViolation` and change nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from .dice import DICE_COUNT, Dice, DiceSource
from .errors import RuleViolation
from .events import Event, GameFinished, GameStarted, Kept, Rolled, Scored, TurnStarted
from .registry import get_ruleset
from .ruleset import Scorecard
from .state import (
    KEEPS_PER_TURN,
    NOTHING_KEPT,
    ROLLS_PER_TURN,
    Action,
    GameState,
    Keep,
    PlayerId,
    Roll,
    RolloffEntry,
    Score,
    Turn,
)

MAX_PLAYERS = 8
_MAX_ROLLOFF_ROUNDS = 1000


@dataclass(frozen=True)
class Transition:
    """The state after an action, and the events it caused, in order."""

    state: GameState
    events: tuple[Event, ...]


def new_game(
    ruleset: str,
    players: Sequence[PlayerId],
    dice: DiceSource,
    options: Mapping[str, object] | None = None,
    number: int = 1,
) -> Transition:
    """Start a game: the roll-off for the first player, then the first turn.

    Every player rolls five dice; the highest total starts. Players tied for
    the highest total roll again among themselves until one is highest. Play
    then goes in seat order, wrapping around, from the winner.

    Raises ``ValueError`` for no players, more than 8, or a repeated id, and
    :class:`~app.rules.InvalidOptions` for options the rule set does not have.
    """
    rules = get_ruleset(ruleset)
    seats = tuple(players)
    if not 1 <= len(seats) <= MAX_PLAYERS:
        raise ValueError(f"a game has 1 to {MAX_PLAYERS} players")
    if len(set(seats)) != len(seats):
        raise ValueError("player ids must be distinct")
    normalized = rules.normalize_options(options)

    rolloff: list[tuple[RolloffEntry, ...]] = []
    contenders = seats
    rolls = 0
    while True:
        entries = []
        for player in contenders:
            entries.append(RolloffEntry(player, _checked(dice.roll(rolls, DICE_COUNT), DICE_COUNT)))
            rolls += 1
        rolloff.append(tuple(entries))
        best = max(entry.total for entry in entries)
        contenders = tuple(e.player_id for e in entries if e.total == best)
        if len(contenders) == 1:
            break
        if len(rolloff) >= _MAX_ROLLOFF_ROUNDS:
            raise RuntimeError("the dice source keeps producing ties")
    first = seats.index(contenders[0])
    order = seats[first:] + seats[:first]

    state = GameState(
        ruleset=rules.name,
        options=normalized,
        players=seats,
        order=order,
        rolloff=tuple(rolloff),
        scorecards=MappingProxyType({p: Scorecard.empty(rules.boxes) for p in seats}),
        turn=Turn(order[0]),
        round=1,
        rolls_made=rolls,
        number=number,
        commitment=dice.commitment,
    )
    events: tuple[Event, ...] = (
        GameStarted(number, order, state.rolloff, dice.commitment),
        TurnStarted(order[0], 1),
    )
    return Transition(state, events)


def apply(state: GameState, action: Action, dice: DiceSource) -> Transition:
    """Validate ``action`` against the rules and apply it.

    Refusals are checked in the precedence of ``docs/api.md``: malformed positions
    (``invalid_request``), ``game_over``, ``not_your_turn``, then the action's
    own: for a roll ``no_rolls_left`` (and ``must_roll_first`` for a roll
    with ``keep`` before the first roll); for a keep ``must_roll_first``,
    ``no_rolls_left``, ``too_many_keeps``; for a score ``unknown_box``, ``must_roll_first``,
    ``box_filled``, then the rule set's (``joker_forces_upper``,
    ``joker_lower_box``, ``upper_section_first``).
    """
    keep = action.keep if isinstance(action, Roll) else action.dice if isinstance(action, Keep) else None
    if keep is not None:
        _check_positions(keep)
    turn = state.turn
    if turn is None:
        raise RuleViolation("game_over", "the game is over")
    if action.player_id != turn.player_id:
        raise RuleViolation("not_your_turn", "it is not your turn")
    if isinstance(action, Roll):
        return _roll(state, turn, action, dice)
    if isinstance(action, Keep):
        return _keep(state, turn, action)
    return _score(state, turn, action, dice)


def _check_positions(positions: Sequence[int]) -> None:
    if any(type(p) is not int or not 0 <= p < DICE_COUNT for p in positions):
        raise RuleViolation("invalid_request", "dice positions are 0 to 4")
    if len(set(positions)) != len(positions):
        raise RuleViolation("invalid_request", "a dice position is listed twice")


def _kept_mask(positions: Sequence[int]) -> tuple[bool, ...]:
    return tuple(i in positions for i in range(DICE_COUNT))


def _checked(values: Dice, count: int) -> Dice:
    if len(values) != count or any(not 1 <= v <= 6 for v in values):
        raise RuntimeError(f"the dice source returned {values!r} for {count} dice")
    return tuple(values)


def _roll(state: GameState, turn: Turn, action: Roll, dice: DiceSource) -> Transition:
    if turn.rolls_left == 0:
        raise RuleViolation("no_rolls_left", "no rolls left: score a box")
    kept = turn.kept
    if action.keep is not None:
        if turn.dice is None and action.keep:
            raise RuleViolation("must_roll_first", "there are no dice to keep before the first roll")
        kept = _kept_mask(action.keep)
    free = [i for i in range(DICE_COUNT) if not kept[i]]
    values = iter(_checked(dice.roll(state.rolls_made, len(free)), len(free)))
    old = turn.dice
    new_dice = tuple(next(values) if not kept[i] or old is None else old[i] for i in range(DICE_COUNT))
    rolls_left = turn.rolls_left - 1
    new_turn = replace(turn, dice=new_dice, kept=kept, rolls_left=rolls_left)
    new_state = replace(state, turn=new_turn, rolls_made=state.rolls_made + 1)
    return Transition(new_state, (Rolled(turn.player_id, new_dice, kept, rolls_left),))


def _keep(state: GameState, turn: Turn, action: Keep) -> Transition:
    if turn.dice is None:
        raise RuleViolation("must_roll_first", "there are no dice to keep before the first roll")
    if turn.rolls_left == 0:
        raise RuleViolation("no_rolls_left", "no rolls left: score a box")
    if turn.keeps >= KEEPS_PER_TURN:
        raise RuleViolation(
            "too_many_keeps", f"at most {KEEPS_PER_TURN} keeps a turn: roll (with the dice to keep) or score"
        )
    kept = _kept_mask(action.dice)
    new_state = replace(state, turn=replace(turn, kept=kept, keeps=turn.keeps + 1))
    return Transition(new_state, (Kept(turn.player_id, kept),))


def _score(state: GameState, turn: Turn, action: Score, dice: DiceSource) -> Transition:
    rules = get_ruleset(state.ruleset)
    box = action.box
    if box not in rules.boxes:
        raise RuleViolation("unknown_box", f"{state.ruleset} has no box {box!r}")
    if turn.dice is None:
        raise RuleViolation("must_roll_first", "roll before you score")
    player = turn.player_id
    card = state.scorecards[player]
    refusal = rules.refusal(card, box, turn.dice, state.options)
    if refusal is not None:
        raise RuleViolation(*refusal)

    points = rules.points(card, box, turn.dice, state.options)
    bonus = rules.bonus(card, turn.dice, state.options)
    before = rules.totals(card)
    new_card = card.with_score(box, points, bonus)
    after = rules.totals(new_card)
    cards = dict(state.scorecards)
    cards[player] = new_card
    scored = Scored(
        player,
        box,
        points,
        yahtzee_bonus=bonus,
        upper_bonus=after.upper_bonus - before.upper_bonus,
        total=after.total,
    )
    state = replace(state, scorecards=MappingProxyType(cards))

    seat = state.order.index(player)
    if seat + 1 < len(state.order):
        next_player, next_round = state.order[seat + 1], state.round
    else:
        next_player, next_round = state.order[0], state.round + 1
    if next_round > rules.rounds:
        totals = {p: rules.totals(c).total for p, c in cards.items()}
        best = max(totals.values())
        winners = tuple(p for p in state.players if totals[p] == best)
        finished = replace(state, turn=None)
        return Transition(finished, (scored, GameFinished(totals, winners, dice.reveal())))
    new_turn = Turn(next_player, None, NOTHING_KEPT, ROLLS_PER_TURN)
    state = replace(state, turn=new_turn, round=next_round)
    return Transition(state, (scored, TurnStarted(next_player, next_round)))


def finish(state: GameState, dice: DiceSource) -> Transition:
    """End a game being played now, before its last round (the host's rules
    decided so: everyone else resigned), with the scorecards as they stand:
    no turn, and a ``game_finished`` with the totals so far, the best total's
    players as winners (the caller may decide otherwise) and the revealed seed.
    Raises :class:`RuleViolation` ``game_over`` for a game already over."""
    if state.turn is None:
        raise RuleViolation("game_over", "the game is over")
    rules = get_ruleset(state.ruleset)
    totals = {p: rules.totals(c).total for p, c in state.scorecards.items()}
    best = max(totals.values())
    finished = replace(state, turn=None)
    leaders = tuple(p for p in state.players if totals[p] == best)
    return Transition(finished, (GameFinished(totals, leaders, dice.reveal()),))


def winners(state: GameState) -> tuple[PlayerId, ...]:
    """The players with the highest grand total (ties share the win); empty
    while the game is being played."""
    if not state.finished:
        return ()
    rules = get_ruleset(state.ruleset)
    totals = {p: rules.totals(c).total for p, c in state.scorecards.items()}
    best = max(totals.values())
    return tuple(p for p in state.players if totals[p] == best)
