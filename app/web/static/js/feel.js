// How the play screen feels (issue 18.6, 18.7): short sounds made with the
// Web Audio API (no audio files), a vibration when my turn comes, one mute
// control remembered on this device, the dice's roll animation and a
// celebration for five of a kind. Sound is on by default: the sounds are
// short and quiet, a browser plays none before the player has touched the
// page, and only my own roll, my turn coming round (in a game with others)
// and celebrations make one; the mute switch in the header silences them and
// the vibration. Under prefers-reduced-motion: reduce nothing moves (no roll
// animation, no confetti); the sounds follow the mute switch alone.
import { esc } from './dom.js';
import { t } from './i18n.js';

const KEY = 'dicecup.muted';

/** Whether this device's player muted the sounds (and vibration). */
export const muted = () => localStorage.getItem(KEY) === '1';

export const reducedMotion = () => Boolean(window.matchMedia?.('(prefers-reduced-motion: reduce)').matches);

let audio = null;

function context() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!audio) {
    try {
      audio = new Context();
    } catch {
      return null;
    }
  }
  if (audio.state === 'suspended') audio.resume().catch(() => {});
  return audio;
}

/** One note: `freq` Hz from `at` seconds (after now) for `length` seconds, fading out. */
function note(ctx, freq, at, length, { type = 'sine', volume = 0.08 } = {}) {
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(volume, start + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

/** A die hitting the table: a short burst of filtered noise. */
function knock(ctx, at, volume) {
  const length = 0.05;
  const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = 'bandpass';
  filter.frequency.value = 1800 + Math.random() * 1400;
  const gain = ctx.createGain();
  gain.gain.value = volume;
  source.connect(filter).connect(gain).connect(ctx.destination);
  source.start(ctx.currentTime + at);
}

const SOUNDS = {
  roll: (ctx) => [0, 0.07, 0.13, 0.2, 0.26].forEach((at, i) => knock(ctx, at + Math.random() * 0.03, 0.5 - i * 0.06)),
  turn: (ctx) => {
    note(ctx, 660, 0, 0.18);
    note(ctx, 880, 0.14, 0.3);
  },
  fanfare: (ctx) => [523, 659, 784, 1047].forEach((freq, i) => note(ctx, freq, i * 0.11, i === 3 ? 0.6 : 0.2, { type: 'triangle', volume: 0.1 })),
};

/** Whether the player has touched the page yet: before that a browser plays no sound and allows no vibration. */
const touched = () => !navigator.userActivation || navigator.userActivation.hasBeenActive;

/** Play one of the sounds, unless muted. The page counts what it played (html[data-sounds]). */
export function play(kind) {
  if (muted() || !SOUNDS[kind] || !touched()) return false;
  const ctx = context();
  if (!ctx) return false;
  try {
    SOUNDS[kind](ctx);
  } catch {
    return false;
  }
  const root = document.documentElement;
  root.dataset.sounds = String(Number(root.dataset.sounds || 0) + 1);
  root.dataset.lastSound = kind;
  return true;
}

/** My turn came round: a chime and, on a phone that allows it, a short buzz (both unless muted). */
export function yourTurn() {
  if (muted()) return;
  play('turn');
  if (!touched()) return;
  try {
    navigator.vibrate?.([90, 60, 90]);
  } catch {
    // not allowed here (no user gesture yet, or no vibration)
  }
}

/** The header's mute switch: a toggle button (aria-pressed), its state kept in localStorage. */
export function mountMute(parent) {
  let button = document.getElementById('mute');
  if (!button) {
    button = document.createElement('button');
    button.type = 'button';
    button.id = 'mute';
    button.className = 'mute quiet';
    parent.append(button);
    button.addEventListener('click', () => {
      localStorage.setItem(KEY, muted() ? '0' : '1');
      update(button);
      if (!muted()) play('turn'); // what sound on sounds like (the click is the gesture a browser wants)
    });
  }
  update(button);
  return button;
}

function update(button) {
  const off = muted();
  button.setAttribute('aria-pressed', String(off));
  button.setAttribute('aria-label', t('feel.mute'));
  button.title = t(off ? 'feel.muted' : 'feel.sound_on');
  button.innerHTML = off
    ? '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M4 9h4l5-4v14l-5-4H4z"/><path d="M16 9l5 6M21 9l-5 6" fill="none" stroke="currentColor" stroke-width="2"/></svg>'
    : '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M4 9h4l5-4v14l-5-4H4z"/><path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" fill="none" stroke="currentColor" stroke-width="2"/></svg>';
}

/** Restart the roll animation on a die that was just rolled (none under reduced motion). */
export function tumble(die) {
  die.classList.remove('rolling');
  if (reducedMotion()) return;
  void die.offsetWidth; // restart the animation
  die.classList.add('rolling');
  setTimeout(() => die.classList.remove('rolling'), 450);
}

/** Confetti pieces (hidden by CSS under reduced motion; not even drawn then). */
export const confetti = () =>
  reducedMotion() ? '' : `<div class="confetti" aria-hidden="true">${Array.from({ length: 24 }, (_, i) => `<i style="--i: ${i}"></i>`).join('')}</div>`;

let closing = null;

/**
 * A celebration for five of a kind scored: `{kind: 'five' | 'bonus', name, box, points}`.
 * It says so to screen readers (role=status), plays the fanfare and goes away by itself.
 */
export function celebrate({ kind, name, box, points }) {
  document.getElementById('celebration')?.remove();
  clearTimeout(closing);
  const node = document.createElement('section');
  node.id = 'celebration';
  node.className = 'new-best celebration';
  node.setAttribute('role', 'status');
  node.dataset.kind = kind;
  const line = kind === 'bonus' ? t('feel.bonus', { name, box, points }) : t('feel.five', { name, box, points });
  node.innerHTML = `${confetti()}<p class="big">${esc(line)}</p>
    <p class="row"><button type="button" id="celebration-close">${esc(t('pf.close'))}</button></p>`;
  document.body.append(node);
  node.querySelector('#celebration-close').addEventListener('click', () => node.remove());
  closing = setTimeout(() => node.remove(), 8000);
  play('fanfare');
}
