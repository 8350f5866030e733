// The fair-dice check of docs/api.md ("Fair dice"), in the browser with
// WebCrypto (SubtleCrypto): the revealed seed against its commitment
// (SHA-256), and every roll recomputed from HMAC-SHA256(key=seed, "n:i").
// The same rules as app/rules/verify.py's verify_game; no DOM, so Node runs it
// too (tests/web/fair.test.mjs, with the test vector of docs/api.md).
const DICE = 5;

const subtle = () => {
  const crypto = globalThis.crypto;
  if (!crypto || !crypto.subtle) throw new Error('WebCrypto (crypto.subtle) is not available: a secure context is needed');
  return crypto.subtle;
};

export const toHex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** Bytes from lowercase or uppercase hex; null if it is not hex. */
export function fromHex(text) {
  if (typeof text !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(text)) return null;
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** SHA-256 of the seed bytes, lowercase hex: the commitment a game publishes at its start. */
export async function commitmentOf(seed) {
  return toHex(await subtle().digest('SHA-256', seed));
}

/** A roller for one seed: roll(n, count) gives the faces of roll n. */
export async function fairDice(seed) {
  const key = await subtle().importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const encoder = new TextEncoder();
  return async function roll(number, count) {
    const faces = [];
    for (let block = 0; faces.length < count; block++) {
      const digest = new Uint8Array(await subtle().sign('HMAC', key, encoder.encode(`${number}:${block}`)));
      for (const byte of digest) {
        if (byte >= 252) continue; // 252 = 42 * 6: every face equally likely
        faces.push((byte % 6) + 1);
        if (faces.length === count) break;
      }
    }
    return faces;
  };
}

const same = (a, b) => Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Check one game's events (in version order, from its game_started on) against
 * the revealed seed. Returns {ok: true, rolls: [...]} or {ok: false, failure, rolls}:
 * `rolls` are the checked rolls ({roll, version, player_id, shown, expected, ok}),
 * `failure` is {kind: 'no_game' | 'no_seed' | 'bad_seed' | 'commitment' | 'rolloff' | 'roll' | 'seed_differs',
 * roll?, version?, player_id?, shown?, expected?}: the first thing that does not hold.
 */
export async function verifyGame(seedHex, events) {
  const rolls = [];
  const fail = (failure) => ({ ok: false, failure, rolls });
  if (!seedHex) return fail({ kind: 'no_seed' });
  const seed = fromHex(seedHex);
  if (!seed || seed.length !== 32) return fail({ kind: 'bad_seed' });
  const roll = await fairDice(seed);
  let count = 0;
  let started = false;
  let dice = null;
  for (const event of events) {
    const data = event.data || {};
    if (event.type === 'game_started') {
      if (started) break; // the next game
      started = true;
      if (data.commitment !== (await commitmentOf(seed))) return fail({ kind: 'commitment', version: event.version });
      for (const round of data.rolloff || []) {
        for (const entry of round) {
          const expected = await roll(count, DICE);
          const check = { roll: count, version: event.version, player_id: entry.player_id, shown: entry.dice, expected, ok: same(entry.dice, expected), rolloff: true };
          rolls.push(check);
          if (!check.ok) return fail({ kind: 'rolloff', ...check });
          count++;
        }
      }
    } else if (!started) {
      continue;
    } else if (event.type === 'turn_started') {
      dice = null;
    } else if (event.type === 'rolled') {
      const kept = data.kept.map((k) => Boolean(k) && dice !== null);
      const fresh = await roll(count, kept.filter((k) => !k).length);
      let next = 0;
      const expected = kept.map((k, i) => (k ? dice[i] : fresh[next++]));
      const check = { roll: count, version: event.version, player_id: event.player_id, shown: data.dice, expected, ok: same(data.dice, expected) };
      rolls.push(check);
      if (!check.ok) return fail({ kind: 'roll', ...check });
      dice = expected;
      count++;
    } else if (event.type === 'game_finished') {
      if (data.seed !== undefined && data.seed !== null && data.seed !== seedHex) return fail({ kind: 'seed_differs', version: event.version });
      break;
    }
  }
  if (!started) return fail({ kind: 'no_game' });
  return { ok: true, rolls };
}
