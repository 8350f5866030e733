"""Win chances: each player's probability of winning from the current scorecards,
every player assumed to play solitaire-optimally from here.

Method. A player's final total is their points so far plus the points still
to come, whose distribution depends only on their turn-start state (filled
boxes, upper total, Yahtzee flag). Players' dice are independent and
solitaire play does not look at the others, so the final totals are
independent and the chances follow exactly from the per-player
distributions: P(i wins) = sum over x of P(X_i = x) * E[1/(1+T) ; every
other X_j <= x], T the number of others also at x (a shared win counts as a
split, so the chances add up to 1).

Each player's distribution, served (``variance`` given: the variant's table
of the variance of the points still to come from every state, solved once
like the strategy table):

- at most ``EXACT_OPEN`` open boxes: exact, turn by turn (each turn's
  outcomes under the optimal policy: the probability of every final roll,
  its best box, the points and the state after it);
- more: a mixture of normals: this turn's outcomes exactly, then for each
  outcome a normal with the exact mean and variance of the state it leads to
  (so the mixture has the state's exact mean and variance, and the skew and
  modes of this turn's scoring), discretized on the integers.

Both are cached per state, so after a scored box only the player who scored
has a new one (microseconds to a few milliseconds). Without a variance
table, the distribution is estimated by Monte Carlo: ``rollouts`` games
played out from the state by the optimal policy, all at once in NumPy (one
turn plan for every rollout per turn; the rare Joker scoring goes through
the rules engine). bench/chances_error.py measures the error of both.
"""

from __future__ import annotations

import itertools
import math
import threading
import zlib
from collections import OrderedDict
from collections.abc import Collection, Mapping, Sequence
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from app.rules import Scorecard
from app.strategy import Advisor, BoxChoice, multisets
from app.strategy.advisor import TurnPlan

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

ROLLOUTS = 1000
"""Games simulated per turn-start state (docs/api.md states the resulting error)."""
EXACT_OPEN = 3
"""With a variance table, players with at most this many open boxes get their
exact distribution (far from normal: one box left is one turn's few values),
the others the normal mixture (docs/api.md states its measured error)."""
CACHE_SIZE = 4096
BATCH = 128


def _transitions() -> FloatArray:
    """(462, 252): the probability that keeping multiset k and rolling the rest gives roll r."""
    out = np.zeros((multisets.N_KEEPS, multisets.N_ROLLS))
    for k, kept in enumerate(multisets.ORDER):
        free = 5 - sum(kept)
        for faces in itertools.combinations_with_replacement(range(6), free):
            counts = list(kept)
            ways = math.factorial(free)
            for face in set(faces):
                ways //= math.factorial(faces.count(face))
            for face in faces:
                counts[face] += 1
            out[k, multisets.INDEX[tuple(counts)]] += ways / 6**free  # type: ignore[index]
    return out


def _sub_keeps() -> IntArray:
    """(252, 32): each roll's sub-multisets (itself and the empty one included), padded with itself."""
    out = np.zeros((multisets.N_ROLLS, 32), dtype=np.int64)
    for r, faces in enumerate(multisets.ROLL_FACES):
        subs = sorted({c for n in range(6) for c in itertools.combinations(faces, n)})
        indices = [multisets.keep_index(s) for s in subs]
        out[r] = indices + [r] * (32 - len(indices))
    return out


TRANSITIONS = _transitions()
CUMULATIVE = np.cumsum(TRANSITIONS, axis=1)
SUB_KEEPS = _sub_keeps()


class Rollouts:
    """Estimated distributions of the points still to come, per turn-start
    state of one variant (thread-safe: the API computes them in worker threads)."""

    def __init__(self, advisor: Advisor, rollouts: int = ROLLOUTS, cache_size: int = CACHE_SIZE) -> None:
        self.advisor = advisor
        self.model = advisor.model
        self.rollouts = rollouts
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[int, int, int], IntArray] = OrderedDict()
        self._outcomes: OrderedDict[tuple[int, int, int], tuple[FloatArray, IntArray, IntArray]] = OrderedDict()
        self._exact: OrderedDict[tuple[int, int, int], FloatArray] = OrderedDict()
        self._fitted: OrderedDict[tuple[int, int, int], FloatArray] = OrderedDict()
        self._lock = threading.Lock()
        self._seed = zlib.crc32(advisor.variant.key.encode())

    def remaining(self, card: Scorecard) -> IntArray:
        """Points still to come for ``card`` in each rollout (sorted)."""
        state = self.advisor.state(card)
        with self._lock:
            found = self._cache.get(state)
            if found is not None:
                self._cache.move_to_end(state)
                return found
        samples = np.sort(self.simulate(*state))
        with self._lock:
            self._cache[state] = samples
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return samples

    def simulate(self, mask0: int, upper0: int, flag0: int, rollouts: int | None = None) -> IntArray:
        """Play ``rollouts`` games from one turn-start state by the optimal policy;
        the points each one scores from there (bonuses included)."""
        n = rollouts or self.rollouts
        m = self.model
        rng = np.random.default_rng([self._seed, mask0, upper0, flag0, n])
        mask = np.full(n, mask0, dtype=np.int64)
        upper = np.full(n, upper0, dtype=np.int64)
        flag = np.full(n, flag0, dtype=np.int64)
        gained = np.zeros(n, dtype=np.int64)
        columns = np.arange(n)
        full = (1 << m.n_boxes) - 1
        for _ in range(m.n_boxes - int(mask0).bit_count()):
            # Rollouts in the same state share one column of the turn plan.
            _, first, column = np.unique(m.state_index(mask, upper, flag), return_index=True, return_inverse=True)
            keep_values = self._keep_values(mask[first], upper[first], flag[first])
            roll = _sample(np.full(n, multisets.EMPTY), rng)
            for rolls_left in (2, 1):
                subs = SUB_KEEPS[roll]
                values = keep_values[rolls_left][subs, column.reshape(-1, 1)]
                roll = _sample(subs[columns, np.argmax(values, axis=1)], rng)
            points, mask, upper, flag = self._score(roll, mask, upper, flag)
            gained += points
        assert (mask == full).all()
        return gained

    def turn_outcomes(self, mask0: int, upper0: int, flag0: int) -> tuple[FloatArray, IntArray, IntArray]:
        """This turn played optimally from one turn-start state, exactly: for
        each of its distinct outcomes, the probability, the points it gains
        (bonuses included) and the flat index of the state after it (-1 when
        the card is then full)."""
        return self.turn_outcomes_many([(mask0, upper0, flag0)])[0]

    def turn_outcomes_many(self, states: Sequence[tuple[int, int, int]]) -> list[tuple[FloatArray, IntArray, IntArray]]:
        """:meth:`turn_outcomes` of many states at once (one turn plan)."""
        m = self.model
        n = multisets.N_ROLLS
        count = len(states)
        mask, upper, flag = (np.ascontiguousarray(c) for c in np.array(states, dtype=np.int64).reshape(-1, 3).T)
        plan = TurnPlan(self.advisor.solver, self.advisor.table, mask, upper, flag)
        rows = np.arange(n)
        p = np.tile(TRANSITIONS[multisets.EMPTY], (count, 1))  # (states, rolls)
        owner = np.repeat(np.arange(count), n) * multisets.N_KEEPS
        for rolls_left in (2, 1):
            values = plan.keep_values[rolls_left][SUB_KEEPS]  # (rolls, 32, states)
            best = SUB_KEEPS[rows[:, None], np.argmax(values, axis=1)]  # (rolls, states): the keep
            kept = np.bincount(owner + best.T.reshape(-1), weights=p.reshape(-1), minlength=count * multisets.N_KEEPS)
            p = kept.reshape(count, multisets.N_KEEPS) @ TRANSITIONS
        gain, after_mask, after_upper, after_flag = self._score(
            np.tile(rows, count), np.repeat(mask, n), np.repeat(upper, n), np.repeat(flag, n)
        )
        full = after_mask == (1 << m.n_boxes) - 1
        after = np.where(full, -1, m.state_index(after_mask, after_upper, after_flag))
        span_gain = int(gain.max()) + 1
        span_state = int(self.advisor.table.size) + 1
        key = (np.repeat(np.arange(count), n) * span_gain + gain) * span_state + (after + 1)
        keys, inverse = np.unique(key, return_inverse=True)
        weights = np.bincount(inverse, weights=p.reshape(-1), minlength=keys.size)
        which = keys // (span_gain * span_state)
        gains = (keys // span_state) % span_gain
        afters = keys % span_state - 1
        bounds = np.searchsorted(which, np.arange(count + 1))
        out = []
        for i in range(count):
            part = slice(int(bounds[i]), int(bounds[i + 1]))
            w, g, a = weights[part], gains[part], afters[part]
            keep = w > 0
            out.append((w[keep].astype(np.float64), g[keep].astype(np.int64), a[keep].astype(np.int64)))
        return out

    def _prefetch(self, states: Sequence[tuple[int, int, int]]) -> None:
        """Compute (in one batch) the outcomes of those states not cached yet."""
        with self._lock:
            missing = [s for s in dict.fromkeys(states) if s not in self._outcomes]
        if not missing:
            return
        found = self.turn_outcomes_many(missing)
        with self._lock:
            for state, outcome in zip(missing, found, strict=True):
                self._outcomes[state] = outcome
            while len(self._outcomes) > self.cache_size:
                self._outcomes.popitem(last=False)

    def outcomes(self, state: tuple[int, int, int]) -> tuple[FloatArray, IntArray, IntArray]:
        """:meth:`turn_outcomes`, cached per state."""
        with self._lock:
            found = self._outcomes.get(state)
        if found is None:
            found = self.turn_outcomes(*state)
            with self._lock:
                self._outcomes[state] = found
                while len(self._outcomes) > self.cache_size:
                    self._outcomes.popitem(last=False)
        return found

    def lookahead(self, card: Scorecard, variance: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The points still to come as a mixture of normals: this turn exactly,
        the rest of the game a normal with the exact mean and variance of the
        state each outcome of the turn leads to (skewed and multimodal where
        this turn makes it so). The components' weights, means and variances."""
        weights, gain, after = self.outcomes(self.advisor.state(card))
        later: FloatArray = np.where(after >= 0, self.advisor.table.reshape(-1)[after], 0.0)
        spread: FloatArray = np.where(after >= 0, variance.reshape(-1)[after], 0.0)
        return weights, gain + later, spread

    def exact(self, state: tuple[int, int, int]) -> FloatArray:
        """The exact distribution of the points still to come from ``state``
        (``out[x]``: the probability of x more points), turn by turn through
        :meth:`turn_outcomes`: for the last few open boxes (the work grows
        with the states reachable)."""
        with self._lock:
            found = self._exact.get(state)
        if found is not None:
            return found
        shape = self.advisor.table.shape
        frontier = [state]
        while frontier:  # the states reachable, layer by layer, in batches
            with self._lock:
                frontier = [s for s in frontier if s not in self._exact]
            self._prefetch(frontier)
            later: set[tuple[int, int, int]] = set()
            for s in frontier:
                _, _, after = self.outcomes(s)
                for a in after[after >= 0]:
                    mask, upper, flag = np.unravel_index(int(a), shape)
                    later.add((int(mask), int(upper), int(flag)))
            frontier = sorted(later)
        return self._exact_of(state)

    def _exact_of(self, state: tuple[int, int, int]) -> FloatArray:
        with self._lock:
            found = self._exact.get(state)
        if found is not None:
            return found
        weights, gain, after = self.outcomes(state)
        shape = self.advisor.table.shape
        parts: list[tuple[float, int, FloatArray]] = []
        for w, g, a in zip(weights, gain, after, strict=True):
            if a < 0:
                parts.append((float(w), int(g), np.ones(1)))
            else:
                mask, upper, flag = np.unravel_index(int(a), shape)
                parts.append((float(w), int(g), self._exact_of((int(mask), int(upper), int(flag)))))
        out = np.zeros(max(g + sub.size for _, g, sub in parts))
        for w, g, sub in parts:
            out[g : g + sub.size] += w * sub
        with self._lock:
            self._exact[state] = out
            while len(self._exact) > self.cache_size:
                self._exact.popitem(last=False)
        return out

    def fitted(self, card: Scorecard, variance: FloatArray) -> FloatArray:
        """:meth:`lookahead`'s mixture discretized: the distribution of the
        points still to come (``out[x]``: of x more points), cached per state."""
        state = self.advisor.state(card)
        with self._lock:
            found = self._fitted.get(state)
        if found is not None:
            return found
        weights, means, variances = self.lookahead(card, variance)
        out = mixture_pmf(weights, means, variances, int((means + 8 * np.sqrt(variances)).max()) + 2)
        with self._lock:
            self._fitted[state] = out
            while len(self._fitted) > self.cache_size:
                self._fitted.popitem(last=False)
        return out

    def _keep_values(self, mask: IntArray, upper: IntArray, flag: IntArray) -> dict[int, FloatArray]:
        """The turn plan's keep values of these states (sorted by mask), a
        batch at a time as the solver does: a batch stays in the CPU cache and
        spans few masks, so boxes filled in all of its states are skipped."""
        out = {rolls: np.empty((multisets.N_KEEPS, mask.size)) for rolls in (1, 2)}
        for start in range(0, mask.size, BATCH):
            part = slice(start, start + BATCH)
            plan = TurnPlan(self.advisor.solver, self.advisor.table, mask[part], upper[part], flag[part])
            for rolls in (1, 2):
                out[rolls][:, part] = plan.keep_values[rolls]
        return out

    def _score(
        self, roll: IntArray, mask: IntArray, upper: IntArray, flag: IntArray
    ) -> tuple[IntArray, IntArray, IntArray, IntArray]:
        """The best box for each rollout's final roll: the points it gains now
        (bonuses included) and the state after it."""
        m = self.model
        n = roll.size
        table = self.advisor.table.reshape(-1)
        best_value = np.full(n, -np.inf)
        best_points = np.zeros(n, dtype=np.int64)
        best_mask, best_upper, best_flag = mask.copy(), upper.copy(), flag.copy()
        lower_allowed = np.ones(n, dtype=bool)
        if m.upper_first:
            lower_allowed = (mask & m.upper_mask) == m.upper_mask
        upper_bits = {bit for bit, _ in m.upper}
        for bit in range(m.n_boxes):
            legal = (mask >> bit) & 1 == 0
            if bit not in upper_bits:
                legal &= lower_allowed
            if not legal.any():
                continue
            points = m.points[bit, roll].astype(np.int64)
            next_upper, next_flag, gain = upper, flag, points
            if bit in upper_bits and m.upper_bonus:
                next_upper = np.minimum(upper + points, m.n_upper - 1)
                crossed = (upper < m.upper_bonus_at) & (next_upper >= m.upper_bonus_at)
                gain = points + m.upper_bonus_points * crossed
            if bit == m.yahtzee_bit:
                next_flag = np.where(points == 50, 1, flag)
            next_mask = mask | (1 << bit)
            value = gain + table[m.state_index(next_mask, next_upper, next_flag)]
            better = legal & (value > best_value)
            best_value = np.where(better, value, best_value)
            best_points = np.where(better, gain, best_points)
            best_mask = np.where(better, next_mask, best_mask)
            best_upper = np.where(better, next_upper, best_upper)
            best_flag = np.where(better, next_flag, best_flag)
        if m.yahtzee_bit is not None:
            five = np.isin(roll, multisets.YAHTZEE_ROLLS)
            best_points = best_points + 100 * (five & (flag == 1))
            # A Yahtzee with the Yahtzee box filled is a Joker: its legal boxes and
            # their points are the rules engine's (rare: decided one by one).
            joker = five & ((mask >> m.yahtzee_bit) & 1 == 1)
            for i in np.flatnonzero(joker):
                points, state = self._joker(int(roll[i]), int(mask[i]), int(upper[i]), int(flag[i]))
                best_points[i] = points
                best_mask[i], best_upper[i], best_flag[i] = state
        return best_points, best_mask, best_upper, best_flag

    def _joker(self, roll: int, mask: int, upper: int, flag: int) -> tuple[int, tuple[int, int, int]]:
        advisor, m = self.advisor, self.model
        card = _card_of(advisor, mask, upper, flag)
        dice = multisets.ROLL_FACES[roll]
        choice = advisor.box_choices(card, dice)[0]
        assert isinstance(choice, BoxChoice)
        rules = advisor.rules
        after = card.with_score(choice.box, choice.points, rules.bonus(card, dice, advisor.options))
        gain = rules.totals(after).total - rules.totals(card).total
        state = advisor.state(after)
        del m
        return gain, state


def _card_of(advisor: Advisor, mask: int, upper: int, flag: int) -> Scorecard:
    """A scorecard in the turn-start state (mask, upper, flag): filled boxes
    hold 0 except the upper total (in the first filled upper box) and the
    Yahtzee box's 50 when the flag is set."""
    m = advisor.model
    boxes: dict[str, int | None] = {}
    rest = upper
    for box in m.boxes:
        filled = mask >> m.bit[box] & 1
        boxes[box] = None if not filled else 0
    for bit, _ in m.upper:
        if mask >> bit & 1 and rest:
            boxes[m.boxes[bit]] = rest
            rest = 0
    if m.yahtzee_bit is not None and mask >> m.yahtzee_bit & 1:
        boxes["yahtzee"] = 50 if flag else 0
    return Scorecard(MappingProxyType(boxes))


def _sample(keeps: IntArray, rng: np.random.Generator) -> IntArray:
    """For each kept multiset, the roll that rolling the other dice gives."""
    u = rng.random(keeps.size)
    rolls: IntArray = np.minimum((CUMULATIVE[keeps] < u[:, None]).sum(axis=1), multisets.N_ROLLS - 1)
    return rolls


def win_chances(totals: Sequence[int], remaining: Sequence[npt.NDArray[np.integer]]) -> list[float]:
    """Each player's chance of winning, given their points so far and samples
    (or exact support, equally likely values) of their points still to come;
    ties split the win. Exact for the distributions given."""
    finals = [int(t) + np.asarray(r, dtype=np.int64) for t, r in zip(totals, remaining, strict=True)]
    size = max(int(f.max()) for f in finals) + 1
    return combine([np.bincount(f, minlength=size) / f.size for f in finals])


def combine(pmfs: Sequence[FloatArray]) -> list[float]:
    """Each player's chance of winning from the distributions of their final
    totals (``pmfs[i][x]``: the probability that player i ends with x points;
    independent players, ties split the win). Exact for the distributions given."""
    players = len(pmfs)
    if players == 1:
        return [1.0]
    size = max(q.size for q in pmfs)
    p = np.zeros((players, size))
    for i, q in enumerate(pmfs):
        p[i, : q.size] = q
    below = np.cumsum(p, axis=1) - p  # P(X_j < x)
    chances = []
    for i in range(players):
        # coefs[t, x]: probability that exactly t of the others are at x and the rest below x
        coefs = np.zeros((players, size))
        coefs[0] = 1.0
        for j in range(players):
            if j == i:
                continue
            shifted = np.zeros_like(coefs)
            shifted[1:] = coefs[:-1] * p[j]
            coefs = coefs * below[j] + shifted
        share = (coefs / np.arange(1, players + 1)[:, None]).sum(axis=0)
        chances.append(float((p[i] * share).sum()))
    total = sum(chances)
    return [c / total for c in chances]  # rounding only: the sum is 1 to ~1e-15


def _erf(x: FloatArray) -> FloatArray:
    """The error function (Abramowitz and Stegun 7.1.26: absolute error below 1.5e-7)."""
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    y: FloatArray = np.sign(x) * (1.0 - poly * np.exp(-x * x))
    return y


def mixture_pmf(weights: FloatArray, centers: FloatArray, variances: FloatArray, size: int) -> FloatArray:
    """A mixture of normals (weights summing to 1) on 0..size-1, discretized by
    rounding (the mass of [x - 1/2, x + 1/2) at x; the tails folded into the
    end cells). A component with zero variance is a point mass."""
    out = np.zeros(size)
    point = variances <= 1e-9
    if point.any():
        cells = np.clip(np.rint(centers[point]).astype(np.int64), 0, size - 1)
        np.add.at(out, cells, weights[point])
    spread = ~point
    if spread.any():
        edges = np.arange(size + 1) - 0.5
        z = (edges[None, :] - centers[spread, None]) / np.sqrt(2 * variances[spread, None])
        cdf = 0.5 * (1 + _erf(z))
        cdf[:, 0], cdf[:, -1] = 0.0, 1.0
        out += weights[spread] @ np.diff(cdf, axis=1)
    return out


def chances_of(
    rollouts: Rollouts,
    cards: Mapping[str, Scorecard],
    order: Sequence[str],
    variance: FloatArray | None = None,
    exact_open: int = EXACT_OPEN,
    eligible: Collection[str] | None = None,
) -> tuple[dict[str, float], dict[str, float]]:
    """Each player's win chance and expected final total (exact, from the table).
    Only the ``eligible`` players (default: all) can win: the others' chance is 0.

    With ``variance`` (the variant's variance table), the distribution of a
    player's points still to come is exact with at most ``exact_open`` open
    boxes, else :meth:`Rollouts.fitted` (this turn exactly, then a normal);
    without it, the rollouts' (Monte Carlo)."""
    advisor = rollouts.advisor
    m = advisor.model
    rules = advisor.rules
    table = advisor.table.reshape(-1)
    totals = [rules.totals(cards[p]).total for p in order]
    expected: dict[str, float] = {}
    remaining: list[FloatArray] = []
    for p, total in zip(order, totals, strict=True):
        state = advisor.state(cards[p])
        open_boxes = m.n_boxes - int(state[0]).bit_count()
        later = 0.0 if open_boxes == 0 else float(table[m.state_index(*state)])
        expected[p] = total + later
        if open_boxes == 0:
            remaining.append(np.ones(1))
        elif variance is None:
            samples = rollouts.remaining(cards[p])
            remaining.append(np.bincount(samples) / samples.size)
        elif open_boxes <= exact_open:
            remaining.append(rollouts.exact(state))
        else:
            remaining.append(rollouts.fitted(cards[p], variance))
    size = max(total + r.size for total, r in zip(totals, remaining, strict=True))
    pmfs = []
    for total, r in zip(totals, remaining, strict=True):
        pmf = np.zeros(size)
        pmf[total : total + r.size] = r
        pmfs.append(pmf)
    who = [i for i, p in enumerate(order) if eligible is None or p in eligible]
    chances = dict.fromkeys(order, 0.0)
    for i, share in zip(who, combine([pmfs[i] for i in who]), strict=True):
        chances[order[i]] = share
    return chances, expected
