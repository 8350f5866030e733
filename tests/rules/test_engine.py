"""The turn, the roll-off, refusals and their precedence, totals and the end."""

from dataclasses import replace

import pytest

from app.rules import (
    GameStarted,
    InvalidOptions,
    Keep,
    Roll,
    RuleViolation,
    Score,
    ScriptedDice,
    TurnStarted,
    apply,
    get_ruleset,
    new_game,
    state_from_dict,
    state_to_dict,
    winners,
)
from app.rules.state import KEEPS_PER_TURN

from .support import position


def refusal(state, action, dice=None) -> str:
    before = state_to_dict(state)
    with pytest.raises(RuleViolation) as caught:
        apply(state, action, dice or ScriptedDice([]))
    assert state_to_dict(state) == before
    return caught.value.code


class TestRolloff:
    def test_highest_total_starts_then_seat_order(self) -> None:
        dice = ScriptedDice([1, 1, 1, 1, 1, 6, 6, 6, 6, 6, 2, 2, 2, 2, 2])
        t = new_game("yahtzee", ["a", "b", "c"], dice)
        assert t.state.order == ("b", "c", "a")
        assert [e.total for e in t.state.rolloff[0]] == [5, 30, 10]
        assert t.state.rolls_made == 3
        assert isinstance(t.events[0], GameStarted) and t.events[0].order == ("b", "c", "a")
        assert t.events[1] == TurnStarted("b", 1)

    def test_tied_players_roll_again_among_themselves(self) -> None:
        dice = ScriptedDice(
            [*[6] * 5, *[1] * 5, *[6] * 5, *[4] * 5]  # a and c tie on 30, b and d are out
            + [2] * 5
            + [3] * 5  # c beats a
        )
        t = new_game("yacht", ["a", "b", "c", "d"], dice)
        assert [[e.player_id for e in r] for r in t.state.rolloff] == [["a", "b", "c", "d"], ["a", "c"]]
        assert t.state.order == ("c", "d", "a", "b")
        assert t.state.rolls_made == 6
        assert dice.remaining == 0

    def test_solo_rolloff_is_one_roll(self) -> None:
        t = new_game("yahtzee", ["solo"], ScriptedDice([3, 3, 3, 3, 3]))
        assert len(t.state.rolloff) == 1 and len(t.state.rolloff[0]) == 1
        assert t.state.order == ("solo",)

    @pytest.mark.parametrize("players", [[], ["a"] * 2, [str(i) for i in range(9)]])
    def test_player_count_and_ids(self, players: list[str]) -> None:
        with pytest.raises(ValueError):
            new_game("yacht", players, ScriptedDice([1] * 100))


class TestOptions:
    def test_defaults(self) -> None:
        t = new_game("yahtzee", ["a"], ScriptedDice([1] * 5))
        assert dict(t.state.options) == {"joker": "forced", "upper_first": False}

    @pytest.mark.parametrize(
        ("ruleset", "options"),
        [
            ("yahtzee", {"joker": "sometimes"}),
            ("yahtzee", {"upper_first": 1}),
            ("yahtzee", {"upper_first": "yes"}),
            ("yahtzee", {"bonus": True}),
            ("yacht", {"joker": "free"}),
        ],
    )
    def test_invalid(self, ruleset: str, options: dict[str, object]) -> None:
        with pytest.raises(InvalidOptions):
            new_game(ruleset, ["a"], ScriptedDice([1] * 5), options)


class TestTurn:
    def start(self, ruleset: str = "yacht"):
        return new_game(ruleset, ["ana", "ben"], ScriptedDice([6] * 5 + [1] * 5)).state

    def test_ana_worked_yacht_turn(self) -> None:
        # RULES.md: Ana rolls 1-2-2-4-6, keeps the 2s, gets 4-4-6; her full_house is
        # filled, so she keeps the 4s, gets 1-4-4, and scores 1-4-4-4-4 as four_of_a_kind for 17.
        state = position("yacht", {"full_house": 20}, None)
        dice = ScriptedDice([1, 2, 2, 4, 6, 4, 4, 6, 1, 4, 4])
        state = apply(state, Roll("ana"), dice).state
        assert state.turn.dice == (1, 2, 2, 4, 6)
        state = apply(state, Roll("ana", keep=(1, 2)), dice).state
        assert state.turn.dice == (4, 2, 2, 4, 6)
        assert sorted(state.turn.dice) == [2, 2, 4, 4, 6]
        assert refusal(state, Score("ana", "full_house")) == "box_filled"
        t = apply(state, Keep("ana", (0, 3)), dice)
        assert t.events[0].kept == (True, False, False, True, False)
        t = apply(t.state, Roll("ana"), dice)
        assert sorted(t.state.turn.dice) == [1, 4, 4, 4, 4]
        assert t.state.turn.rolls_left == 0
        t = apply(t.state, Score("ana", "four_of_a_kind"), dice)
        assert t.events[0].points == 17
        assert dice.remaining == 0

    def test_three_rolls_then_must_score(self) -> None:
        state = self.start()
        dice = ScriptedDice([1, 2, 3, 4, 5] * 3)
        for left in (2, 1, 0):
            t = apply(state, Roll("ana"), dice)
            assert t.events[0].rolls_left == left
            state = t.state
        assert refusal(state, Roll("ana")) == "no_rolls_left"
        assert refusal(state, Keep("ana", (0,))) == "no_rolls_left"
        assert apply(state, Score("ana", "little_straight"), dice).events[0].points == 30

    def test_kept_dice_persist_and_can_be_rerolled(self) -> None:
        state = self.start()
        dice = ScriptedDice([1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6])
        state = apply(state, Roll("ana"), dice).state
        state = apply(state, Keep("ana", (0, 1)), dice).state
        state = apply(state, Roll("ana"), dice).state
        assert state.turn.dice == (1, 2, 6, 6, 6)
        assert state.turn.kept == (True, True, False, False, False)
        state = apply(state, Roll("ana", keep=(2, 3)), dice).state
        assert state.turn.dice == (6, 6, 6, 6, 6)

    def test_rolling_with_everything_kept_uses_a_roll(self) -> None:
        state = self.start()
        dice = ScriptedDice([1, 2, 3, 4, 5])
        state = apply(state, Roll("ana"), dice).state
        t = apply(state, Roll("ana", keep=(0, 1, 2, 3, 4)), dice)
        assert t.state.turn.dice == (1, 2, 3, 4, 5)
        assert t.state.turn.rolls_left == 1
        assert t.state.rolls_made == state.rolls_made + 1

    def test_new_turn_keeps_nothing(self) -> None:
        state = self.start()
        dice = ScriptedDice([1, 2, 3, 4, 5])
        state = apply(state, Roll("ana"), dice).state
        state = apply(state, Keep("ana", (0, 1, 2)), dice).state
        t = apply(state, Score("ana", "choice"), dice)
        assert t.events[1] == TurnStarted("ben", 1)
        assert t.state.turn.kept == (False,) * 5 and t.state.turn.dice is None

    def test_refusals_before_first_roll(self) -> None:
        state = self.start()
        assert refusal(state, Keep("ana", (0,))) == "must_roll_first"
        assert refusal(state, Roll("ana", keep=(0,))) == "must_roll_first"
        assert refusal(state, Score("ana", "choice")) == "must_roll_first"
        assert refusal(state, Score("ana", "chance")) == "unknown_box"  # unknown_box first

    def test_not_your_turn(self) -> None:
        state = self.start()
        for action in (Roll("ben"), Keep("ben", (0,)), Score("ben", "choice"), Roll("stranger")):
            assert refusal(state, action) == "not_your_turn"

    @pytest.mark.parametrize("positions", [(5,), (-1,), (0, 0), (1, 2, 1)])
    def test_bad_positions_come_first(self, positions: tuple[int, ...]) -> None:
        state = self.start()
        assert refusal(state, Keep("ben", positions)) == "invalid_request"
        assert refusal(state, Roll("ana", keep=positions)) == "invalid_request"

    def test_game_over_before_not_your_turn(self) -> None:
        state = replace(self.start(), turn=None)
        assert refusal(state, Roll("ben")) == "game_over"

    def test_keeps_are_capped_per_turn(self) -> None:
        """Issue 27.7: keeps were unlimited (1,139 events in 60 s, all stored and
        replayed); a turn has at most KEEPS_PER_TURN of them. A roll's own
        keep is not one, so play goes on; the next turn has its own."""
        state = position("yacht", {}, None)
        dice = ScriptedDice([3] * 15)
        state = apply(state, Roll("ana"), dice).state
        for i in range(KEEPS_PER_TURN):
            state = apply(state, Keep("ana", dice=(i % 5,)), dice).state
        assert state.turn.keeps == KEEPS_PER_TURN
        assert refusal(state, Keep("ana", dice=(0,))) == "too_many_keeps"
        assert state_from_dict(state_to_dict(state)) == state  # stored and read back with its count
        state = apply(state, Roll("ana", keep=(0, 1)), dice).state
        assert state.turn.kept == (True, True, False, False, False)
        assert refusal(state, Keep("ana", dice=())) == "too_many_keeps"
        state = apply(state, Score("ana", "choice"), dice).state
        assert state.turn.keeps == 0

    def test_a_state_stored_before_the_cap_reads_with_no_keeps(self) -> None:
        state = apply(position("yacht", {}, None), Roll("ana"), ScriptedDice([3] * 5)).state
        stored = state_to_dict(state)
        del stored["turn"]["keeps"]
        assert state_from_dict(stored).turn.keeps == 0


class TestTotals:
    @pytest.mark.parametrize(("ones", "upper", "bonus"), [(3, 62, 0), (4, 63, 35)])
    def test_upper_bonus_at_62_and_63(self, ones: int, upper: int, bonus: int) -> None:
        filled = {"ones": ones, "twos": 6, "threes": 9, "fours": 16, "sixes": 18}
        state = position("yahtzee", filled, (5, 5, 1, 1, 1))
        t = apply(state, Score("ana", "fives"), ScriptedDice([]))
        totals = get_ruleset("yahtzee").totals(t.state.scorecards["ana"])
        assert (totals.upper_total, totals.upper_bonus) == (upper, bonus)
        assert t.events[0].upper_bonus == bonus
        assert t.events[0].total == upper + bonus

    def test_upper_bonus_is_reported_once(self) -> None:
        filled = {"ones": 5, "twos": 10, "threes": 15, "fours": 20, "fives": 25}
        state = position("yahtzee", filled, (6, 6, 6, 1, 1))
        t = apply(state, Score("ana", "sixes"), ScriptedDice([]))
        assert t.events[0].upper_bonus == 0  # reached before this score

    def test_several_yahtzee_bonuses_in_one_game(self) -> None:
        rolls = [
            [6] * 5,  # yahtzee 50
            [6] * 5,  # forced into sixes 30, +100
            [1] * 5,  # forced into ones 5, +100
            [6] * 5,  # sixes filled: lower box at Joker value, +100
            [2] * 5,  # twos 10, +100
        ]
        boxes = ["yahtzee", "sixes", "ones", "large_straight", "twos"]
        rest = [
            ([3, 3, 3, 1, 2], "threes"),
            ([4, 4, 4, 1, 2], "fours"),
            ([5, 5, 5, 1, 2], "fives"),
            ([3, 3, 3, 2, 2], "full_house"),
            ([1, 2, 3, 4, 6], "small_straight"),
            ([6, 6, 6, 1, 2], "three_of_a_kind"),
            ([6, 6, 6, 6, 2], "four_of_a_kind"),
            ([6, 6, 5, 5, 4], "chance"),
        ]
        plan = list(zip(rolls, boxes, strict=True)) + rest
        dice = ScriptedDice([1] * 5 + [f for faces, _ in plan for f in faces])
        state = new_game("yahtzee", ["solo"], dice).state
        bonuses = []
        for _, box in plan:
            state = apply(state, Roll("solo"), dice).state
            t = apply(state, Score("solo", box), dice)
            bonuses.append(t.events[0].yahtzee_bonus)
            state = t.state
        assert bonuses[:5] == [0, 100, 100, 100, 100]
        totals = get_ruleset("yahtzee").totals(state.scorecards["solo"])
        assert totals.yahtzee_bonus == 400
        assert state.scorecards["solo"].boxes["large_straight"] == 40
        upper = 5 + 10 + 9 + 12 + 15 + 30
        lower = 50 + 40 + 25 + 30 + 21 + 26 + 26
        assert (totals.upper_total, totals.upper_bonus, totals.lower_total) == (upper, 35, lower)
        assert totals.total == upper + 35 + lower + 400
        assert t.events[-1].type == "game_finished"
        assert t.events[-1].totals == {"solo": totals.total}


class TestEnd:
    def play_out(self, ruleset: str, scores: dict[str, list[int]]):
        """Two players fill every box with a Chance-like roll of a chosen sum."""
        rules = get_ruleset(ruleset)
        dice = ScriptedDice([6] * 5 + [1] * 5 + [f for _ in rules.boxes for _ in "ab" for f in [1] * 5])
        state = new_game(ruleset, ["a", "b"], dice).state
        events = []
        for box in rules.boxes:
            for player in "ab":
                state = apply(state, Roll(player), dice).state
                t = apply(state, Score(player, box), dice)
                state, events = t.state, events + list(t.events)
        return state, events

    def test_game_ends_after_every_box_and_ties_share_the_win(self) -> None:
        state, events = self.play_out("yacht", {})
        assert state.finished and state.status == "finished"
        assert events[-1].type == "game_finished"
        assert events[-1].winners == ("a", "b")
        assert winners(state) == ("a", "b")
        assert events[-1].seed is None
        assert refusal(state, Roll("a")) == "game_over"
        assert sum(1 for e in events if e.type == "turn_started") == 2 * 12 - 1

    def test_yacht_zero_is_entered(self) -> None:
        # A roll that scores nothing in any open box still has to be entered.
        state = position("yacht", {}, (1, 1, 2, 3, 5))
        t = apply(state, Score("ana", "yacht"), ScriptedDice([]))
        assert t.events[0].points == 0
        assert t.state.scorecards["ana"].boxes["yacht"] == 0


class TestFinish:
    def test_a_game_ended_early_keeps_its_cards_and_reveals_the_seed(self) -> None:
        from app.rules import FairDice, GameFinished, finish, verify_game

        dice = FairDice.from_hex("26" * 32)
        start = new_game("yacht", ["a", "b"], dice)
        state, events = start.state, list(start.events)
        for _ in range(3):  # a few turns: roll, score the first box open
            player = state.turn.player_id
            rolled = apply(state, Roll(player), dice)
            box = next(iter(get_ruleset("yacht").scorable(rolled.state.scorecards[player], rolled.state.turn.dice, {})))
            scored = apply(rolled.state, Score(player, box), dice)
            events += [*rolled.events, *scored.events]
            state = scored.state
        ended = finish(state, dice)
        assert ended.state.finished and ended.state.round == state.round
        assert ended.state.scorecards == state.scorecards
        assert not all(card.complete for card in ended.state.scorecards.values())
        (event,) = ended.events
        assert isinstance(event, GameFinished) and event.seed == dice.seed_hex
        totals = {p: get_ruleset("yacht").totals(c).total for p, c in state.scorecards.items()}
        assert dict(event.totals) == totals
        assert set(event.winners) == {p for p, t in totals.items() if t == max(totals.values())}
        as_dicts = [{"type": e.type, "data": e.data()} for e in [*events, event]]
        rolloff = sum(len(round_) for round_ in start.state.rolloff)
        assert verify_game(dice.seed_hex, as_dicts) == rolloff + 3  # the roll-off's rolls and three turns' rolls
        with pytest.raises(RuleViolation) as again:
            finish(ended.state, dice)
        assert again.value.code == "game_over"
