"""Exact optimal solitaire play by backward induction over turn-start states.

A state is (filled boxes, upper total capped at 63, whether the Yahtzee box
holds 50). Its value is the expected number of points still to come under
optimal play. Layers are solved from the nearly-full scorecard back to the
empty one; within a layer, states are independent and go through NumPy in
batches small enough to stay in the CPU cache.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from . import multisets
from .model import YAHTZEE_BONUS, IntArray, Model, Variant

FloatArray = npt.NDArray[np.float64]
BATCH = 256
NEG = -np.inf


class _Best:
    """The best candidate so far (by expected value) and, when moments are
    tracked, the second moment of the final score that candidate leads to."""

    def __init__(self, shape: tuple[int, ...], moments: bool) -> None:
        self.value = np.full(shape, NEG)
        self.second: FloatArray | None = np.zeros(shape) if moments else None

    def offer(self, value: FloatArray, second: FloatArray | None) -> None:
        if self.second is None:
            np.maximum(self.value, value, out=self.value)
            return
        assert second is not None
        take = value > self.value
        self.value = np.where(take, value, self.value)
        self.second = np.where(take, second, self.second)


class Solver:
    def __init__(self, variant: Variant, workers: int | None = None, moments: bool = False) -> None:
        self.model = Model(variant)
        self.workers = workers or os.cpu_count() or 1
        self.moments = moments

    # -- one turn, for a batch of turn-start states ------------------------------------

    def _after(
        self, points: FloatArray, index: IntArray, table: FloatArray, seconds: FloatArray | None
    ) -> tuple[FloatArray, FloatArray | None]:
        """Scoring ``points`` now, then playing on from the state at ``index``:
        the expected final value, and its second moment when tracked."""
        later = table.reshape(-1)[index]
        if seconds is None:
            return points + later, None
        return points + later, points * points + 2 * points * later + seconds.reshape(-1)[index]

    @np.errstate(invalid="ignore")  # 0 * -inf in illegal cells, which are never chosen
    def final_roll_values(
        self,
        mask: IntArray,
        upper: IntArray,
        flag: IntArray,
        table: FloatArray,
        seconds: FloatArray | None = None,
    ) -> tuple[FloatArray, FloatArray | None]:
        """(252, B): for each roll after which the player scores, the best box's
        points plus bonuses plus the value of the state it leads to (and, with
        ``seconds``, the second moment of the final score for that choice)."""
        m = self.model
        best = _Best((multisets.N_ROLLS, mask.size), seconds is not None)
        lower_allowed = np.ones(mask.size, dtype=bool)
        if m.upper_first:
            lower_allowed = (mask & m.upper_mask) == m.upper_mask

        upper_candidates: dict[int, tuple[FloatArray, FloatArray | None]] = {}
        for bit, face in m.upper:
            open_ = (mask >> bit) & 1 == 0
            if not open_.any():
                upper_candidates[bit] = (np.full((6, mask.size), NEG), np.zeros((6, mask.size)))
                continue
            adds = face * np.arange(6)
            new_upper = np.minimum(upper[None, :] + adds[:, None], m.n_upper - 1)
            points = np.broadcast_to(adds[:, None], new_upper.shape).astype(np.float64)
            if m.upper_bonus:
                at = m.upper_bonus_at
                points = points + m.upper_bonus_points * ((upper[None, :] < at) & (new_upper >= at))
            value, second = self._after(points, m.state_index(mask | (1 << bit), new_upper, flag), table, seconds)
            value[:, ~open_] = NEG
            upper_candidates[bit] = (value, second)
            rows = m.counts[:, face - 1]
            best.offer(value[rows], None if second is None else second[rows])

        lower_next: dict[int, tuple[FloatArray, FloatArray | None]] = {}
        for bit in m.lower:
            legal = ((mask >> bit) & 1 == 0) & lower_allowed
            if not legal.any():
                continue
            filled = mask | (1 << bit)
            if bit == m.yahtzee_bit:
                zero = np.zeros(mask.size)
                nothing, nothing2 = self._after(zero, m.state_index(filled, upper, 0), table, seconds)
                fifty, fifty2 = self._after(zero + 50, m.state_index(filled, upper, 1), table, seconds)
                nothing[~legal] = NEG
                fifty[~legal] = NEG
                yahtzee = m.is_yahtzee[:, None]
                value = np.where(yahtzee, fifty, nothing)
                second = None
                if fifty2 is not None and nothing2 is not None:
                    second = np.where(yahtzee, fifty2, nothing2)
            else:
                later, later2 = self._after(np.zeros(mask.size), m.state_index(filled, upper, flag), table, seconds)
                later[~legal] = NEG
                lower_next[bit] = (later, later2)
                points = m.points[bit][:, None]
                value = points + later
                second = None if later2 is None else points * points + 2 * points * later + later2
            best.offer(value, second)

        if m.yahtzee_bit is not None and m.joker is not None:
            self._joker(best, mask, upper_candidates, lower_next)
        if m.yahtzee_bit is not None:
            # +100 for a Yahtzee while the Yahtzee box holds 50, whatever box it goes in
            rows = multisets.YAHTZEE_ROLLS
            bonus = YAHTZEE_BONUS * (flag == 1)[None, :]
            if best.second is not None:
                best.second[rows] += 2 * bonus * best.value[rows] + bonus * bonus
            best.value[rows] += bonus
        return best.value, best.second

    def _joker(
        self,
        best: _Best,
        mask: IntArray,
        upper_candidates: dict[int, tuple[FloatArray, FloatArray | None]],
        lower_next: dict[int, tuple[FloatArray, FloatArray | None]],
    ) -> None:
        """Five of a kind with the Yahtzee box filled: the Joker decides which
        boxes may take it and what the lower ones score."""
        m = self.model
        assert m.yahtzee_bit is not None
        joker = (mask >> m.yahtzee_bit) & 1 == 1
        if not joker.any():
            return
        moments = best.second is not None
        for face in range(1, 7):
            row = multisets.YAHTZEE_ROLLS[face - 1]
            face_bit = m.face_bit[face]
            face_filled = (mask >> face_bit) & 1 == 1

            def upper_choice(bit: int) -> tuple[FloatArray, FloatArray | None]:
                value, second = upper_candidates[bit]
                count = 5 if bit == face_bit else 0  # noqa: B023
                return value[count], None if second is None else second[count]

            lower = _Best((mask.size,), moments)
            for bit, (later, later2) in lower_next.items():
                if m.joker == "forced":
                    points: FloatArray | float = float(m.joker_points[bit, face])
                else:
                    points = np.where(face_filled, m.joker_points[bit, face], m.points[bit, row])
                second = None if later2 is None else points * points + 2 * points * later + later2
                lower.offer(points + later, second)
            choice = _Best((mask.size,), moments)
            if m.joker == "forced":
                # 1. the face's upper box if empty; 2. else an empty lower box (if
                # upper_first allows); 3. else zero in an empty upper box
                others = _Best((mask.size,), moments)
                for bit, _ in m.upper:
                    if bit != face_bit:
                        others.offer(*upper_choice(bit))
                forced, forced2 = upper_choice(face_bit)
                use_lower = lower.value > NEG
                choice.value = np.where(~face_filled, forced, np.where(use_lower, lower.value, others.value))
                if moments:
                    assert forced2 is not None and lower.second is not None and others.second is not None
                    choice.second = np.where(~face_filled, forced2, np.where(use_lower, lower.second, others.second))
            else:
                for bit, _ in m.upper:
                    choice.offer(*upper_choice(bit))
                choice.offer(lower.value, lower.second)
            best.value[row] = np.where(joker, choice.value, best.value[row])
            if best.second is not None and choice.second is not None:
                best.second[row] = np.where(joker, choice.second, best.second[row])

    def turn_values(
        self, mask: IntArray, upper: IntArray, flag: IntArray, table: FloatArray, seconds: FloatArray | None = None
    ) -> tuple[FloatArray, FloatArray | None]:
        """The expected points still to come from each turn-start state (B,),
        and their second moment when ``seconds`` is given."""
        final, final2 = self.final_roll_values(mask, upper, flag, table, seconds)
        work = np.empty((multisets.N_KEEPS, mask.size))
        work[: multisets.N_ROLLS] = final
        if final2 is None:
            for _ in range(2):  # before the third roll, then before the second
                multisets.mean(work)
                work[: multisets.N_ROLLS] = multisets.best(work)
            multisets.mean(work)
            return work[multisets.EMPTY].copy(), None
        work2 = np.empty_like(work)
        work2[: multisets.N_ROLLS] = final2  # NaN where a box was illegal (0 * -inf): never chosen
        for _ in range(2):
            multisets.mean(work)
            multisets.mean(work2)
            work[: multisets.N_ROLLS], work2[: multisets.N_ROLLS] = multisets.best_with(work, work2)
        multisets.mean(work)
        multisets.mean(work2)
        return work[multisets.EMPTY].copy(), work2[multisets.EMPTY].copy()

    # -- the whole table -----------------------------------------------------------------

    def solve(self, progress: Callable[[int, int], None] | None = None, min_filled: int = 0) -> FloatArray:
        """Values of every reachable turn-start state: an array (2**boxes, uppers, flags).

        ``min_filled`` stops early: only states with at least that many filled
        boxes are solved (small tables, for tests). With ``moments``, the
        result has a last axis of two: the expected
        points still to come, and their second moment under the same policy.
        With more than one worker, each layer's batches are shared out to
        worker processes that write into one memory-mapped table (the work is
        memory-bound NumPy: threads would only contend for the GIL).
        """
        m = self.model
        shape = (1 << m.n_boxes, m.n_upper, m.n_flag, 2 if self.moments else 1)
        layers = list(range(m.n_boxes - 1, min_filled - 1, -1))
        sizes = {filled: m.layer(filled)[0].size for filled in layers}
        total = sum(sizes.values())
        done = 0
        if self.workers <= 1:
            table = np.zeros(shape)
            for filled in layers:
                mask, upper, flag = m.layer(filled)
                for start in range(0, mask.size, BATCH):
                    done += _solve_batch(self, table, mask, upper, flag, start, start + BATCH)
                    if progress is not None:
                        progress(done, total)
            return table if self.moments else table[..., 0]
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else None
        with tempfile.NamedTemporaryFile(dir=folder, prefix="dicecup-solve-") as backing:
            table = np.lib.format.open_memmap(backing.name, mode="w+", dtype=np.float64, shape=shape)
            context = multiprocessing.get_context("spawn")
            with context.Pool(self.workers, _worker_init, (m.variant, self.moments, backing.name)) as pool:
                for filled in layers:
                    chunk = max(BATCH, -(-sizes[filled] // (self.workers * 4)) // BATCH * BATCH)
                    tasks = [(filled, start, start + chunk) for start in range(0, sizes[filled], chunk)]
                    for size in pool.imap_unordered(_worker_task, tasks):
                        done += size
                        if progress is not None:
                            progress(done, total)
            result = np.array(table if self.moments else table[..., 0])
            del table
        return result


def _solve_batch(
    solver: Solver, table: FloatArray, mask: IntArray, upper: IntArray, flag: IntArray, start: int, stop: int
) -> int:
    """Solve states [start, stop) of a layer into ``table`` (..., 1 or 2)."""
    part = slice(start, stop)
    means = np.ascontiguousarray(table[..., 0])
    seconds = np.ascontiguousarray(table[..., 1]) if solver.moments else None
    values, values2 = solver.turn_values(mask[part], upper[part], flag[part], means, seconds)
    table[mask[part], upper[part], flag[part], 0] = values
    if values2 is not None:
        table[mask[part], upper[part], flag[part], 1] = values2
    return int(values.size)


_worker: dict[str, object] = {}


def _worker_init(variant: Variant, moments: bool, path: str) -> None:
    _worker["solver"] = Solver(variant, workers=1, moments=moments)
    _worker["table"] = np.load(path, mmap_mode="r+")
    _worker["layers"] = {}


def _worker_task(task: tuple[int, int, int]) -> int:
    filled, start, stop = task
    solver = _worker["solver"]
    table = _worker["table"]
    layers = _worker["layers"]
    assert isinstance(solver, Solver) and isinstance(table, np.ndarray) and isinstance(layers, dict)
    if filled not in layers:
        layers[filled] = solver.model.layer(filled)
    mask, upper, flag = layers[filled]
    done = 0
    for batch in range(start, min(stop, mask.size), BATCH):
        done += _solve_batch(solver, table, mask, upper, flag, batch, min(batch + BATCH, stop))
    return done
