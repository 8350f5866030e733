// What a seated player must not miss, wherever the page is scrolled: the tray
// (turn banner, dice, Roll) comes into view as a game starts and as each of
// their turns begins, and chat that arrives while the chat is out of view
// shows as a badge (on the tray during a game, else in the header bar) that
// leads to it. What people say is also read out by the room's polite live
// region (js/main.js announce); the badge says how much is waiting.
import { esc } from './dom.js';
import { n, plural } from './i18n.js';

// ---------------------------------------------------------------- the tray

let trayFor = null; // 'code:game:round' of the last time the tray was brought into view (or 'code:game:theirs')

const inView = (node) => {
  const box = node.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= innerHeight;
};

/** Scroll the game's top into view if the tray is off screen (on a phone the tray is sticky at the
 * screen's foot under the scorecard, on a desktop beside it); whether the tray is in view now. Not
 * while the player is typing (in the chat's field): the page does not move under their words, and
 * the next render tries again. */
function showTray() {
  const tray = document.querySelector('#game .table');
  const game = document.getElementById('game');
  if (!tray || !game || inView(tray)) return true;
  if (document.activeElement?.matches('input, textarea, select')) return false;
  const top = game.getBoundingClientRect().top + scrollY;
  if (top < innerHeight / 2) scrollTo({ top: 0 });
  else game.scrollIntoView({ block: 'start' });
  return true;
}

/** After each render: a game this seat plays in has just started (or the room was opened during
 * one), or this seat's turn has just begun: the tray is brought into view. */
export function keepTrayInView(room, seated, mine) {
  const game = room.status === 'playing' && room.game;
  if (!game || !seated) {
    trayFor = null;
    return;
  }
  const prefix = `${room.code}:${game.number}:`;
  const key = prefix + (mine ? game.round : 'theirs');
  if (key === trayFor) return;
  const first = !trayFor || !trayFor.startsWith(prefix);
  if (!(mine || first) || showTray()) trayFor = key;
}

// ---------------------------------------------------------------- chat out of view

let unread = 0;
let chatSeen = false; // the chat panel is open and on screen
let watched = null; // the chat section the observer watches

const chatOpen = () => Boolean(document.getElementById('chat-panel')?.open);

/** Watch whether the chat can be read where it is (its section on screen, its panel open). */
export function watchChat() {
  const section = document.getElementById('chat');
  if (section === watched) return;
  watched = section;
  chatSeen = false;
  if (!section || typeof IntersectionObserver !== 'function') return;
  const observer = new IntersectionObserver((entries) => {
    if (watched !== section) return observer.disconnect();
    chatSeen = entries[entries.length - 1].isIntersecting;
    if (chatSeen && chatOpen()) clear();
  });
  observer.observe(section);
  section.querySelector('#chat-panel')?.addEventListener('toggle', () => chatSeen && chatOpen() && clear());
}

/** A chat message or reaction from someone else arrived: counted if the chat is out of view. */
export function chatArrived() {
  if (chatSeen && chatOpen()) return;
  unread += 1;
  drawBadge();
}

function clear() {
  if (!unread) return;
  unread = 0;
  drawBadge();
}

/** Leaving the room forgets what was unread in it. */
export function forgetChat() {
  unread = 0;
  watched = null;
  chatSeen = false;
  document.getElementById('chat-badge')?.remove();
}

/** A speech bubble (drawn, not an emoji: every device shows it). */
const BUBBLE =
  '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H10l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg>';

/** The badge, on the tray during a game (always on screen there), else in the header bar. */
export function drawBadge() {
  let badge = document.getElementById('chat-badge');
  if (!unread) {
    badge?.remove();
    return;
  }
  const home = document.querySelector('#game .table') || document.querySelector('.bar');
  if (!home) return;
  if (!badge) {
    badge = document.createElement('button');
    badge.type = 'button';
    badge.id = 'chat-badge';
    badge.className = 'chat-badge';
    badge.addEventListener('click', openChat);
  }
  if (badge.parentElement !== home) home.append(badge);
  const label = plural('chat.unread', unread);
  if (badge.getAttribute('aria-label') !== label) {
    badge.setAttribute('aria-label', label);
    badge.innerHTML = `${BUBBLE}<span class="count" aria-hidden="true">${esc(n(unread))}</span>`;
  }
}

/** The badge's tap: the chat opened and brought into view, its field (or its title) focused. */
function openChat() {
  const panel = document.getElementById('chat-panel');
  if (!panel) return;
  panel.open = true;
  const field = document.getElementById('chat-input');
  const target = field && field.offsetParent !== null ? field : document.getElementById('chat-title');
  document.getElementById('chat').scrollIntoView({ block: 'center' });
  target?.focus({ preventScroll: true });
  clear();
}
