'use strict';
// Dicecup's dice games as boardgame.io games, for the side-by-side bench
// (python -m bench.bgio). The same game as app/rules: five dice, three rolls
// a turn, a roll-off for the first player, one box filled per turn, the boxes
// and scoring of app/rules/yacht.py and app/rules/yahtzee.py (Yahtzee with
// its default options: the forced Joker, no upper-first rule). The server
// rolls the dice with boardgame.io's random API. Every finished bench game is
// replayed through app/rules by bench/bgio/verify.py, so a difference from
// Dicecup's rules shows there.

const { INVALID_MOVE } = require('boardgame.io/core');

const DICE = 5;
const ROLLS_PER_TURN = 3;
const UPPER = ['ones', 'twos', 'threes', 'fours', 'fives', 'sixes'];

function counts(dice) {
  const c = [0, 0, 0, 0, 0, 0];
  for (const face of dice) c[face - 1] += 1;
  return c;
}

const sum = (dice) => dice.reduce((a, b) => a + b, 0);
const upperScore = (box, dice) => (UPPER.indexOf(box) + 1) * counts(dice)[UPPER.indexOf(box)];
const isFullHouse = (c) => c.filter((n) => n).sort().join() === '2,3';

function hasRun(dice, length) {
  const faces = new Set(dice);
  for (let start = 1; start + length - 1 <= 6; start++) {
    let all = true;
    for (let i = 0; i < length; i++) all = all && faces.has(start + i);
    if (all) return true;
  }
  return false;
}

const YACHT = {
  name: 'yacht',
  boxes: [
    'yacht', 'big_straight', 'little_straight', 'four_of_a_kind', 'full_house', 'choice',
    'sixes', 'fives', 'fours', 'threes', 'twos', 'ones',
  ],
  upperBonus: () => 0,
  score(box, dice) {
    if (UPPER.includes(box)) return upperScore(box, dice);
    const c = counts(dice);
    const ordered = [...dice].sort().join();
    switch (box) {
      case 'yacht': return Math.max(...c) === 5 ? 50 : 0;
      case 'big_straight': return ordered === '2,3,4,5,6' ? 30 : 0;
      case 'little_straight': return ordered === '1,2,3,4,5' ? 30 : 0;
      case 'four_of_a_kind': return Math.max(...c) >= 4 ? sum(dice) : 0;
      case 'full_house': return isFullHouse(c) ? sum(dice) : 0;
      case 'choice': return sum(dice);
    }
    throw new Error(`no box ${box}`);
  },
  allowed: (card, box) => card.boxes[box] === null,
  points(card, box, dice) { return this.score(box, dice); },
  bonus: () => 0,
};

// What a Joker scores in each lower box; null: the sum of the dice.
const JOKER_LOWER = {
  three_of_a_kind: null, four_of_a_kind: null, full_house: 25, small_straight: 30,
  large_straight: 40, yahtzee: 50, chance: null,
};
const isYahtzee = (dice) => new Set(dice).size === 1;

const YAHTZEE = {
  name: 'yahtzee',
  boxes: [
    ...UPPER, 'three_of_a_kind', 'four_of_a_kind', 'full_house', 'small_straight',
    'large_straight', 'yahtzee', 'chance',
  ],
  upperBonus: (upper) => (upper >= 63 ? 35 : 0),
  score(box, dice) {
    if (UPPER.includes(box)) return upperScore(box, dice);
    const most = Math.max(...counts(dice));
    switch (box) {
      case 'three_of_a_kind': return most >= 3 ? sum(dice) : 0;
      case 'four_of_a_kind': return most >= 4 ? sum(dice) : 0;
      case 'full_house': return isFullHouse(counts(dice)) ? 25 : 0;
      case 'small_straight': return hasRun(dice, 4) ? 30 : 0;
      case 'large_straight': return hasRun(dice, 5) ? 40 : 0;
      case 'yahtzee': return most === 5 ? 50 : 0;
      case 'chance': return sum(dice);
    }
    throw new Error(`no box ${box}`);
  },
  isJoker: (card, dice) => isYahtzee(dice) && card.boxes.yahtzee !== null,
  // The forced Joker (Hasbro's rules 1-3), as app/rules/yahtzee.py refuses.
  allowed(card, box, dice) {
    if (card.boxes[box] !== null) return false;
    if (!this.isJoker(card, dice)) return true;
    const faceBox = UPPER[dice[0] - 1];
    if (card.boxes[faceBox] === null) return box === faceBox;
    const lowerOpen = this.boxes.some((b) => !UPPER.includes(b) && card.boxes[b] === null);
    return !(UPPER.includes(box) && lowerOpen);
  },
  points(card, box, dice) {
    if (!UPPER.includes(box) && this.isJoker(card, dice) && card.boxes[UPPER[dice[0] - 1]] !== null) {
      return JOKER_LOWER[box] === null ? sum(dice) : JOKER_LOWER[box];
    }
    return this.score(box, dice);
  },
  bonus: (card, dice) => (isYahtzee(dice) && card.boxes.yahtzee === 50 ? 100 : 0),
};

function total(rules, card) {
  let upper = 0;
  let lower = 0;
  for (const box of rules.boxes) {
    if (UPPER.includes(box)) upper += card.boxes[box] || 0;
    else lower += card.boxes[box] || 0;
  }
  return upper + rules.upperBonus(upper) + lower + card.bonus;
}

/** The boxes the player whose turn it is may fill now, with their points. */
function scorable(rules, G, player) {
  const card = G.cards[player];
  const dice = G.turn.dice;
  const out = {};
  if (dice === null) return out;
  for (const box of rules.boxes) {
    if (rules.allowed(card, box, dice)) out[box] = rules.points(card, box, dice);
  }
  return out;
}

function positionsOk(positions) {
  return (
    Array.isArray(positions) &&
    positions.every((p) => Number.isInteger(p) && p >= 0 && p < DICE) &&
    new Set(positions).size === positions.length
  );
}

const mask = (positions) => Array.from({ length: DICE }, (_, i) => positions.includes(i));
const freshTurn = () => ({ dice: null, kept: mask([]), rollsLeft: ROLLS_PER_TURN });

function makeGame(rules) {
  // Roll with an optional keep (which first replaces the kept set), keep, score:
  // the refusals of app/rules/engine.py, as boardgame.io's INVALID_MOVE.
  function roll({ G, random }, keep) {
    const turn = G.turn;
    if (keep !== undefined && !positionsOk(keep)) return INVALID_MOVE;
    if (turn.rollsLeft === 0) return INVALID_MOVE;
    if (keep !== undefined) {
      if (turn.dice === null && keep.length) return INVALID_MOVE;
      turn.kept = mask(keep);
    }
    const free = [];
    for (let i = 0; i < DICE; i++) if (!turn.kept[i] || turn.dice === null) free.push(i);
    const faces = random.Die(6, free.length);
    const dice = turn.dice === null ? [0, 0, 0, 0, 0] : [...turn.dice];
    free.forEach((position, i) => { dice[position] = faces[i]; });
    turn.dice = dice;
    turn.rollsLeft -= 1;
  }

  function keep({ G }, positions) {
    if (!positionsOk(positions)) return INVALID_MOVE;
    if (G.turn.dice === null || G.turn.rollsLeft === 0) return INVALID_MOVE;
    G.turn.kept = mask(positions);
  }

  function score({ G, playerID, events }, box) {
    const card = G.cards[playerID];
    const dice = G.turn.dice;
    if (!rules.boxes.includes(box) || dice === null || !rules.allowed(card, box, dice)) return INVALID_MOVE;
    const bonus = rules.bonus(card, dice);
    card.boxes[box] = rules.points(card, box, dice);
    card.bonus += bonus;
    events.endTurn();
  }

  return {
    name: rules.name,
    minPlayers: 1,
    maxPlayers: 8,
    disableUndo: true, // as Dicecup: no undo, so no undo history kept per move
    setup({ ctx, random }) {
      // The roll-off of app/rules/engine.py: every player rolls five dice, the
      // highest total starts, ties roll again among themselves.
      const rolloff = [];
      let contenders = [...ctx.playOrder];
      while (contenders.length > 1 || rolloff.length === 0) {
        const entries = contenders.map((player) => ({ player, dice: random.Die(6, DICE) }));
        rolloff.push(entries);
        const best = Math.max(...entries.map((e) => sum(e.dice)));
        contenders = entries.filter((e) => sum(e.dice) === best).map((e) => e.player);
      }
      const cards = {};
      for (const player of ctx.playOrder) {
        cards[player] = { boxes: Object.fromEntries(rules.boxes.map((b) => [b, null])), bonus: 0 };
      }
      return { ruleset: rules.name, rolloff, first: contenders[0], cards, turn: freshTurn() };
    },
    turn: {
      order: {
        first: ({ G, ctx }) => ctx.playOrder.indexOf(G.first),
        next: ({ ctx }) => (ctx.playOrderPos + 1) % ctx.numPlayers,
      },
      onBegin: ({ G }) => { G.turn = freshTurn(); },
    },
    // client: false: the clients wait for the server's answer, as Dicecup's
    // wait for their ack (no optimistic update, whose timing would not be the server's).
    moves: {
      roll: { move: roll, client: false },
      keep: { move: keep, client: false },
      score: { move: score, client: false },
    },
    endIf({ G }) {
      const players = Object.keys(G.cards);
      if (!players.every((p) => rules.boxes.every((b) => G.cards[p].boxes[b] !== null))) return undefined;
      const totals = Object.fromEntries(players.map((p) => [p, total(rules, G.cards[p])]));
      const best = Math.max(...Object.values(totals));
      return { totals, winners: players.filter((p) => totals[p] === best) };
    },
  };
}

const RULES = { yacht: YACHT, yahtzee: YAHTZEE };
const GAMES = Object.fromEntries(Object.entries(RULES).map(([name, rules]) => [name, makeGame(rules)]));

module.exports = { GAMES, RULES, scorable, total };
