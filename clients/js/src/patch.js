// RFC 6902 JSON Patch, applied without mutating the input: every operation
// copies the containers on its path and shares everything else, so a view
// keyed on object identity re-renders only what changed. Paths are RFC 6901
// pointers ('' is the whole document; '~1' is '/', '~0' is '~').

/** @typedef {import('./types.js').PatchOp} PatchOp */

/** A patch that does not apply to the document (a path that is not there, a failed test, ...). */
export class PatchError extends Error {
  /**
   * @param {string} message
   * @param {PatchOp} [operation]
   * @param {number} [index] the operation's position in the patch
   */
  constructor(message, operation, index) {
    super(message);
    this.name = 'PatchError';
    this.operation = operation;
    this.index = index;
  }
}

/**
 * The reference tokens of an RFC 6901 pointer ('' gives []).
 * @param {string} pointer
 * @returns {string[]}
 */
export function parsePointer(pointer) {
  if (pointer === '') return [];
  if (typeof pointer !== 'string' || pointer[0] !== '/') {
    throw new PatchError(`not a JSON pointer: ${JSON.stringify(pointer)}`);
  }
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * A key as a pointer token.
 * @param {string | number} key
 * @returns {string}
 */
export function escapeToken(key) {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An array index token: digits without a leading zero (or '-' where allowed).
 * @param {string} token
 * @param {number} length
 * @param {boolean} append whether '-' and `length` itself are allowed (add)
 * @returns {number}
 */
function arrayIndex(token, length, append) {
  if (append && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`not an array index: ${JSON.stringify(token)}`);
  const index = Number(token);
  if (index > length || (!append && index === length)) throw new PatchError(`index ${index} out of range`);
  return index;
}

/**
 * The value at `tokens` in `doc`.
 * @param {unknown} doc
 * @param {string[]} tokens
 * @returns {unknown}
 */
function get(doc, tokens) {
  let node = doc;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[arrayIndex(token, node.length, false)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else throw new PatchError(`no ${JSON.stringify(token)} in the document`);
  }
  return node;
}

/**
 * `doc` with its containers along `tokens` copied and `change` applied to a
 * copy of the last one (the parent of the target).
 * @param {unknown} doc
 * @param {string[]} tokens
 * @param {(parent: unknown[] | Record<string, unknown>, key: string) => void} change
 * @returns {unknown}
 */
function update(doc, tokens, change) {
  /** @type {unknown[] | Record<string, unknown>} */
  let copy;
  if (Array.isArray(doc)) copy = doc.slice();
  else if (isObject(doc)) copy = { ...doc };
  else throw new PatchError(`cannot index into ${doc === null ? 'null' : typeof doc}`);
  const [head, ...rest] = tokens;
  if (rest.length === 0) {
    change(copy, head);
    return copy;
  }
  if (Array.isArray(copy)) {
    const index = arrayIndex(head, copy.length, false);
    copy[index] = update(copy[index], rest, change);
  } else {
    if (!Object.prototype.hasOwnProperty.call(copy, head)) throw new PatchError(`no ${JSON.stringify(head)} in the document`);
    copy[head] = update(copy[head], rest, change);
  }
  return copy;
}

/**
 * @param {unknown} doc
 * @param {string[]} tokens
 * @param {unknown} value
 * @returns {unknown}
 */
function add(doc, tokens, value) {
  if (tokens.length === 0) return value;
  return update(doc, tokens, (parent, key) => {
    if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true), 0, value);
    else parent[key] = value;
  });
}

/**
 * @param {unknown} doc
 * @param {string[]} tokens
 * @returns {unknown}
 */
function remove(doc, tokens) {
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document');
  return update(doc, tokens, (parent, key) => {
    if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false), 1);
    else if (Object.prototype.hasOwnProperty.call(parent, key)) delete parent[key];
    else throw new PatchError(`no ${JSON.stringify(key)} to remove`);
  });
}

/**
 * @param {unknown} doc
 * @param {string[]} tokens
 * @param {unknown} value
 * @returns {unknown}
 */
function replace(doc, tokens, value) {
  if (tokens.length === 0) return value;
  return update(doc, tokens, (parent, key) => {
    if (Array.isArray(parent)) parent[arrayIndex(key, parent.length, false)] = value;
    else if (Object.prototype.hasOwnProperty.call(parent, key)) parent[key] = value;
    else throw new PatchError(`no ${JSON.stringify(key)} to replace`);
  });
}

/**
 * Deep equality of JSON values (for `test`).
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]))
    );
  }
  return false;
}

/**
 * Apply an RFC 6902 patch. The input is left as it was; the answer shares
 * every part the patch did not touch. Throws {@link PatchError} when an
 * operation does not apply (the patch is then not applied at all).
 * @template T
 * @param {T} doc
 * @param {readonly PatchOp[]} patch
 * @returns {T}
 */
export function applyPatch(doc, patch) {
  /** @type {unknown} */
  let out = doc;
  patch.forEach((operation, index) => {
    try {
      const tokens = parsePointer(operation.path);
      switch (operation.op) {
        case 'add':
          out = add(out, tokens, operation.value);
          break;
        case 'remove':
          out = remove(out, tokens);
          break;
        case 'replace':
          if (!('value' in operation)) throw new PatchError('replace without a value');
          out = replace(out, tokens, operation.value);
          break;
        case 'move': {
          const from = parsePointer(operation.from ?? '');
          if (operation.from !== undefined && operation.path.startsWith(`${operation.from}/`)) {
            throw new PatchError('cannot move a value into itself');
          }
          const value = get(out, from);
          out = add(remove(out, from), tokens, value);
          break;
        }
        case 'copy':
          out = add(out, tokens, get(out, parsePointer(operation.from ?? '')));
          break;
        case 'test':
          if (!jsonEqual(get(out, tokens), operation.value)) throw new PatchError(`test failed at ${operation.path}`);
          break;
        default:
          throw new PatchError(`unknown operation ${JSON.stringify(/** @type {{op: unknown}} */ (operation).op)}`);
      }
    } catch (error) {
      if (error instanceof PatchError) {
        throw new PatchError(`patch operation ${index} (${operation.op} ${operation.path}): ${error.message}`, operation, index);
      }
      throw error;
    }
  });
  return /** @type {T} */ (out);
}
