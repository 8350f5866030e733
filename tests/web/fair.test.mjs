// The web client's fair-dice check (app/web/static/js/fair.js) under Node's
// WebCrypto, which is the browser's API: the test vector of docs/api.md (the
// one tests/rules/test_dice.py checks the Python reference with), and real
// games made by app.rules (DICECUP_FAIR_GAMES: a JSON file written by
// tests/web/test_fair_js.py), accepted as they are and refused with one die
// changed, at exactly that roll. Run by tests/web/test_fair_js.py.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { commitmentOf, fairDice, fromHex, verifyGame } from '../../app/web/static/js/fair.js';

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const SEED_HEX = Buffer.from(SEED).toString('hex');

test('the test vector of docs/api.md', async () => {
  assert.equal(SEED_HEX, '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
  assert.equal(await commitmentOf(SEED), '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd');
  const roll = await fairDice(SEED);
  assert.deepEqual(await roll(0, 5), [4, 1, 5, 2, 4]);
  assert.deepEqual(await roll(1, 5), [4, 2, 4, 3, 3]);
  assert.deepEqual(await roll(2, 2), [5, 4]);
  // enough dice for a second HMAC block: every face, all in range
  const many = await roll(5, 200);
  assert.equal(many.length, 200);
  assert.deepEqual([...new Set(many)].sort(), [1, 2, 3, 4, 5, 6]);
  assert.equal(fromHex('zz'), null);
});

/** A one-seat game on the vector's seed: roll-off roll 0, then roll 1 (five dice) and roll 2 (two dice). */
function vectorGame(commitment) {
  return [
    { version: 3, type: 'game_started', player_id: 'a', data: { number: 1, order: ['a'], rolloff: [[{ player_id: 'a', dice: [4, 1, 5, 2, 4], total: 16 }]], commitment } },
    { version: 4, type: 'turn_started', player_id: 'a', data: { player_id: 'a', round: 1 } },
    { version: 5, type: 'rolled', player_id: 'a', data: { dice: [4, 2, 4, 3, 3], kept: [false, false, false, false, false], rolls_left: 2 } },
    { version: 6, type: 'kept', player_id: 'a', data: { kept: [true, true, true, false, false] } },
    { version: 7, type: 'rolled', player_id: 'a', data: { dice: [4, 2, 4, 5, 4], kept: [true, true, true, false, false], rolls_left: 1 } },
    { version: 8, type: 'game_finished', player_id: null, data: { totals: { a: 19 }, winners: ['a'], seed: SEED_HEX } },
  ];
}

test('a game on the vector: verified, and each kind of tampering named', async () => {
  const commitment = await commitmentOf(SEED);
  const ok = await verifyGame(SEED_HEX, vectorGame(commitment));
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.rolls.map((r) => r.roll), [0, 1, 2]);

  const changed = vectorGame(commitment);
  changed[4].data.dice = [4, 2, 4, 5, 5];
  const bad = await verifyGame(SEED_HEX, changed);
  assert.equal(bad.ok, false);
  assert.deepEqual(
    { kind: bad.failure.kind, roll: bad.failure.roll, version: bad.failure.version, shown: bad.failure.shown, expected: bad.failure.expected },
    { kind: 'roll', roll: 2, version: 7, shown: [4, 2, 4, 5, 5], expected: [4, 2, 4, 5, 4] },
  );

  const keptChanged = vectorGame(commitment);
  keptChanged[4].data.dice = [1, 2, 4, 5, 4]; // a kept die that changed
  assert.equal((await verifyGame(SEED_HEX, keptChanged)).failure.roll, 2);

  const rolloff = vectorGame(commitment);
  rolloff[0].data.rolloff[0][0].dice = [4, 1, 5, 2, 5];
  assert.deepEqual([(await verifyGame(SEED_HEX, rolloff)).failure.kind, (await verifyGame(SEED_HEX, rolloff)).failure.roll], ['rolloff', 0]);

  assert.equal((await verifyGame(SEED_HEX, vectorGame('00'.repeat(32)))).failure.kind, 'commitment');
  assert.equal((await verifyGame('00'.repeat(32), vectorGame(commitment))).failure.kind, 'commitment');
  assert.equal((await verifyGame('abc', vectorGame(commitment))).failure.kind, 'bad_seed');
  assert.equal((await verifyGame(null, vectorGame(commitment))).failure.kind, 'no_seed');
  assert.equal((await verifyGame(SEED_HEX, vectorGame(commitment).slice(1))).failure.kind, 'no_game');
  const otherSeed = vectorGame(commitment);
  otherSeed[5].data.seed = '11'.repeat(32);
  assert.equal((await verifyGame(SEED_HEX, otherSeed)).failure.kind, 'seed_differs');
});

test('real games made by app.rules agree with the Python verifier', { skip: !process.env.DICECUP_FAIR_GAMES }, async () => {
  const games = JSON.parse(readFileSync(process.env.DICECUP_FAIR_GAMES, 'utf8'));
  assert.ok(games.length > 0);
  for (const game of games) {
    const checked = await verifyGame(game.seed, game.events);
    assert.equal(checked.ok, true, JSON.stringify(checked.failure));
    assert.equal(checked.rolls.length, game.rolls); // what app.rules.verify_game counted
    const tampered = await verifyGame(game.seed, game.tampered);
    assert.equal(tampered.ok, false);
    assert.equal(tampered.failure.kind, 'roll');
    assert.equal(tampered.failure.version, game.tampered_version);
  }
});
