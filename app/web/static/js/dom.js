// Small DOM helpers for keyed updates: a screen is drawn once, then each part
// is updated only when what it shows changed, so focus, scroll position and
// animations survive every event.

export const esc = (value) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

const HTML = Symbol('html');

function fromHtml(html, context = 'div') {
  const holder = document.createElement(context);
  holder.innerHTML = html;
  return holder.firstElementChild;
}

/** Set `node`'s content to `html`, unless it already shows exactly that. Returns whether it changed. */
export function fill(node, html) {
  if (!node || node[HTML] === html) return false;
  node.innerHTML = html;
  node[HTML] = html;
  return true;
}

/** The child of `parent` with data-slot=`key` (made at the end if missing): a part of the screen updated on its own. */
export function slot(parent, key, tag = 'div') {
  let node = parent.querySelector(`:scope > [data-slot="${key}"]`);
  if (!node) {
    node = document.createElement(tag);
    node.dataset.slot = key;
    node.className = 'slot';
    parent.append(node);
  }
  return node;
}

/**
 * Keyed list update: `items` is [{key, html}] in order, each html one element.
 * Elements whose html did not change are kept (and moved if needed), the
 * others replaced, the missing ones removed. `context` is the tag an item's
 * html parses in ('tbody' for rows).
 */
export function reconcile(parent, items, context = 'div') {
  const existing = new Map();
  for (const child of [...parent.children]) {
    if (child.dataset.key !== undefined) existing.set(child.dataset.key, child);
    else child.remove();
  }
  let cursor = parent.firstElementChild;
  for (const { key, html } of items) {
    let node = existing.get(key);
    existing.delete(key);
    if (!node || node[HTML] !== html) {
      const fresh = fromHtml(html, context);
      fresh.dataset.key = key;
      fresh[HTML] = html;
      if (node) {
        node.replaceWith(fresh);
        if (cursor === node) cursor = fresh;
      }
      node = fresh;
    }
    if (node === cursor) cursor = cursor.nextElementSibling;
    else parent.insertBefore(node, cursor);
  }
  for (const node of existing.values()) node.remove();
}

/** Set or remove attributes: null/false removes, true sets it empty. */
export function attrs(node, values) {
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === false || value === undefined) {
      if (node.hasAttribute(name)) node.removeAttribute(name);
    } else {
      const text = value === true ? '' : String(value);
      if (node.getAttribute(name) !== text) node.setAttribute(name, text);
    }
  }
}

const usable = (node) => node && node.isConnected && !node.disabled && node.getAttribute('aria-disabled') !== 'true' && node.offsetParent !== null;

/** Focus the first of `selectors` that is on screen and enabled. */
export function focusFirst(selectors) {
  for (const selector of selectors) {
    const node = document.querySelector(selector);
    if (usable(node)) {
      node.focus({ preventScroll: false });
      return node;
    }
  }
  return null;
}

/**
 * Run `update` (which changes the screen) without losing the keyboard focus:
 * if the focused element went away or became unusable, focus the element
 * with the same id, or the first of `fallback` that can take it.
 */
export function keepFocus(root, fallback, update) {
  const before = document.activeElement;
  const inside = before && before !== document.body && root.contains(before);
  const id = inside ? before.id : null;
  update();
  const now = document.activeElement;
  if (!inside || (now && now !== document.body && now.isConnected && !now.disabled)) return;
  const same = id && document.getElementById(id);
  // the same control drawn again (even if waiting, aria-disabled) keeps the focus
  if (same && same.isConnected && !same.disabled) same.focus();
  else focusFirst(fallback);
}
