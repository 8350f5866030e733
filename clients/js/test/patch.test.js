// RFC 6902 application on crafted cases (RFC 6902 appendix A among them).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { applyPatch, escapeToken, parsePointer, PatchError } from '../src/index.js';

/**
 * @param {any} doc
 * @param {any[]} patch
 */
function apply(doc, patch) {
  const before = JSON.stringify(doc);
  const out = applyPatch(doc, patch);
  assert.equal(JSON.stringify(doc), before, 'the input is not mutated');
  return out;
}

test('add, remove and replace object members', () => {
  assert.deepEqual(apply({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }]), { foo: 'bar', baz: 'qux' });
  assert.deepEqual(apply({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }]), { foo: 'bar' });
  assert.deepEqual(apply({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }]), {
    baz: 'boo',
    foo: 'bar',
  });
  // add over an existing member replaces it; values may be null, objects, arrays
  assert.deepEqual(apply({ a: 1 }, [{ op: 'add', path: '/a', value: null }]), { a: null });
  assert.deepEqual(apply({ a: 1 }, [{ op: 'replace', path: '/a', value: { b: [1, 2] } }]), { a: { b: [1, 2] } });
});

test('arrays: insert, append with -, remove, replace by index', () => {
  assert.deepEqual(apply({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }]), {
    foo: ['bar', 'qux', 'baz'],
  });
  assert.deepEqual(apply([1, 2], [{ op: 'add', path: '/-', value: 3 }]), [1, 2, 3]);
  assert.deepEqual(apply([1, 2], [{ op: 'add', path: '/2', value: 3 }]), [1, 2, 3]);
  assert.deepEqual(apply({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }]), { foo: ['bar', 'baz'] });
  assert.deepEqual(apply([[0, 1], [2]], [{ op: 'replace', path: '/0/1', value: 9 }]), [[0, 9], [2]]);
});

test('the root path "" replaces the whole document', () => {
  const room = { version: 3, players: [] };
  assert.deepEqual(apply(room, [{ op: 'replace', path: '', value: { version: 9 } }]), { version: 9 });
  assert.deepEqual(apply(room, [{ op: 'add', path: '', value: [1] }]), [1]);
  assert.throws(() => apply(room, [{ op: 'remove', path: '' }]), PatchError);
  // a root replace, then operations against the new document
  assert.deepEqual(
    apply(room, [
      { op: 'replace', path: '', value: { a: { b: 1 } } },
      { op: 'replace', path: '/a/b', value: 2 },
    ]),
    { a: { b: 2 } },
  );
});

test('~0 and ~1 escapes in paths', () => {
  const doc = { 'a/b': 1, 'm~n': 2, '~1': 3, '': 4, ' ': 5 };
  assert.deepEqual(apply(doc, [{ op: 'replace', path: '/a~1b', value: 10 }])['a/b'], 10);
  assert.deepEqual(apply(doc, [{ op: 'replace', path: '/m~0n', value: 20 }])['m~n'], 20);
  // ~01 is "~1" (unescape ~1 first, then ~0), not "/"
  assert.deepEqual(apply(doc, [{ op: 'replace', path: '/~01', value: 30 }])['~1'], 30);
  assert.deepEqual(apply(doc, [{ op: 'replace', path: '/', value: 40 }])[''], 40);
  assert.deepEqual(apply(doc, [{ op: 'replace', path: '/ ', value: 50 }])[' '], 50);
  assert.deepEqual(apply({}, [{ op: 'add', path: '/x~1y~0z', value: 1 }]), { 'x/y~z': 1 });
  assert.deepEqual(parsePointer('/a~1b/m~0n/~01'), ['a/b', 'm~n', '~1']);
  assert.equal(escapeToken('a/b~c'), 'a~1b~0c');
});

test('move, copy and test', () => {
  assert.deepEqual(apply({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [
    { op: 'move', from: '/foo/waldo', path: '/qux/thud' },
  ]), { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } });
  assert.deepEqual(apply({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }]), {
    foo: ['all', 'cows', 'eat', 'grass'],
  });
  assert.deepEqual(apply({ a: [1] }, [{ op: 'copy', from: '/a', path: '/b' }]), { a: [1], b: [1] });
  assert.deepEqual(apply({ baz: 'qux', foo: ['a', 2, 'c'] }, [
    { op: 'test', path: '/baz', value: 'qux' },
    { op: 'test', path: '/foo/1', value: 2 },
  ]), { baz: 'qux', foo: ['a', 2, 'c'] });
  assert.throws(() => apply({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]), PatchError);
});

test('operations that do not apply throw PatchError, and nothing is applied', () => {
  const doc = { a: { b: [1, 2] }, c: null };
  const bad = [
    [{ op: 'replace', path: '/missing', value: 1 }], // replace needs the member
    [{ op: 'remove', path: '/missing' }],
    [{ op: 'add', path: '/missing/x', value: 1 }], // the parent must exist
    [{ op: 'replace', path: '/c/x', value: 1 }], // into null
    [{ op: 'replace', path: '/a/b/2', value: 1 }], // past the end
    [{ op: 'add', path: '/a/b/3', value: 1 }],
    [{ op: 'remove', path: '/a/b/-' }],
    [{ op: 'replace', path: '/a/b/01', value: 1 }], // leading zero
    [{ op: 'replace', path: '/a/b/x', value: 1 }],
    [{ op: 'replace', path: 'a', value: 1 }], // not a pointer
    [{ op: 'frobnicate', path: '/a', value: 1 }],
    [{ op: 'replace', path: '/a', value: 1 }, { op: 'remove', path: '/nope' }], // the second fails
  ];
  for (const patch of bad) {
    assert.throws(() => apply(doc, patch), PatchError, JSON.stringify(patch));
  }
  try {
    applyPatch(doc, [{ op: 'add', path: '/a/b/0', value: 0 }, { op: 'remove', path: '/x' }]);
  } catch (error) {
    assert.ok(error instanceof PatchError);
    assert.equal(error.index, 1);
    assert.deepEqual(error.operation, { op: 'remove', path: '/x' });
  }
});

test('the answer shares what the patch did not touch', () => {
  const doc = { players: [{ id: 'a' }, { id: 'b' }], game: { turn: { dice: [1, 2, 3, 4, 5] }, scorecards: { a: {} } } };
  const out = applyPatch(doc, [{ op: 'replace', path: '/game/turn/dice/0', value: 6 }]);
  assert.equal(out.players, doc.players);
  assert.equal(out.game.scorecards, doc.game.scorecards);
  assert.notEqual(out.game.turn, doc.game.turn);
  assert.deepEqual(out.game.turn.dice, [6, 2, 3, 4, 5]);
  assert.deepEqual(doc.game.turn.dice, [1, 2, 3, 4, 5]);
});

test('a room patch as the server makes them', () => {
  const room = {
    code: 'ZSFSDY',
    version: 35,
    players: [{ id: 'LjFv', connected: true }],
    game: { turn: { player_id: 'LjFv', dice: null, kept: [false, false, false, false, false], rolls_left: 3, scorable: {} } },
  };
  const turn = { player_id: 'LjFv', dice: [2, 5, 4, 4, 3], kept: [false, false, false, false, false], rolls_left: 2, scorable: { choice: 18 } };
  const out = applyPatch(room, [
    { op: 'replace', path: '/version', value: 36 },
    { op: 'replace', path: '/game/turn', value: turn },
  ]);
  assert.equal(out.version, 36);
  assert.deepEqual(out.game.turn, turn);
  assert.equal(applyPatch(room, []), room, 'an empty patch is the document itself');
});
