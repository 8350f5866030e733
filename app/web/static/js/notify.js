// Turn notifications (docs/api.md, "Turn notifications"): a seat asks the
// server to send a Web Push when its turn starts while this page is closed.
// Nothing is asked of the browser until the player clicks the control: then
// the notification permission, a push subscription from the service worker's
// pushManager with the server's VAPID key, and PUT .../players/{id}/push.
// A browser has one push subscription for the whole app (the service worker's),
// shared by every room it has turned notifications on in; turning them off in
// one room tells the server, and the browser's subscription is dropped only
// when no other room uses it.
import { api } from './api.js';
import { esc } from './dom.js';
import { language, t } from './i18n.js';
import { S, me, vsComputer } from './state.js';

const KEY = 'dicecup.push.';
const SUBSCRIBE_MS = 20000;

/** Whether this browser can receive Web Push here (a secure page with a service worker). */
export const supported = () =>
  Boolean(window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window);

const on = (code) => localStorage.getItem(KEY + code) !== null;

/** The control's state: off, on, busy, denied, failed or unavailable. */
function state(code) {
  if (S.push && S.push.code === code) return S.push.state;
  return on(code) ? 'on' : 'off'; // blocked notifications are said on the click, not on every room
}

/** The room head's control: only for a seat, only where the browser has Web Push. */
export function control(room) {
  // nobody to wait for against the computer: a bot's turn is over in seconds
  if (!S.seat || !supported() || room.status === 'closed' || vsComputer(room)) return '';
  const now = state(room.code);
  const pressed = now === 'on' || (now === 'busy' && on(room.code)); // busy: as it was until the answer
  const notes = { on: 'push.on', denied: 'push.denied', failed: 'push.failed', unavailable: 'push.unavailable' };
  const note = notes[now] ? `<p class="muted small" id="notify-note">${esc(t(notes[now]))}</p>` : '';
  return `<div class="notify" data-state="${now}">
      <button data-action="notify" id="notify-toggle" aria-pressed="${pressed}" ${now === 'busy' ? 'disabled' : ''}>${esc(t(pressed ? 'push.turn_off' : 'push.turn_on'))}</button>
      ${note}</div>`;
}

/** base64url to the bytes pushManager.subscribe wants. */
function bytes(base64url) {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function subscription(registration, key) {
  const existing = await registration.pushManager.getSubscription();
  if (existing) {
    const held = existing.options && existing.options.applicationServerKey;
    if (!held || new Uint8Array(held).join() === bytes(key).join()) return existing;
    await existing.unsubscribe(); // made for another server key: start again
  }
  return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes(key) });
}

/** The click: turn notifications on (asking for permission first) or off; `render` redraws. */
export async function toggle(code, render) {
  const seat = S.seat;
  const set = (value) => {
    S.push = { code, state: value };
    render();
  };
  if (on(code)) {
    set('busy');
    const endpoint = localStorage.getItem(KEY + code) || undefined;
    try {
      await api.unsubscribePush(code, seat.playerId, seat.token, endpoint);
    } finally {
      localStorage.removeItem(KEY + code);
    }
    const stillUsed = Object.keys(localStorage).some((key) => key.startsWith(KEY));
    if (!stillUsed) {
      const registration = await navigator.serviceWorker.getRegistration();
      const existing = registration && (await registration.pushManager.getSubscription());
      if (existing) await existing.unsubscribe().catch(() => {});
    }
    set('off');
    return;
  }
  set('busy');
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    set(permission === 'denied' ? 'denied' : 'off');
    return;
  }
  let json;
  try {
    const { public_key: key } = await api.pushKey();
    const registration = await navigator.serviceWorker.ready;
    // a browser that cannot reach its push service may never answer: give up after a while
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('push service timeout')), SUBSCRIBE_MS));
    json = (await Promise.race([subscription(registration, key), late])).toJSON();
  } catch (error) {
    set(error && error.code === 'push_unavailable' ? 'unavailable' : 'failed');
    return;
  }
  try {
    await api.subscribePush(code, me(), json, seat.token, language());
  } catch (error) {
    set(error && error.code === 'push_unavailable' ? 'unavailable' : 'off');
    throw error; // shown as the code's message
  }
  localStorage.setItem(KEY + code, json.endpoint);
  set('on');
}
