// "Play with anyone" (POST /api/quickplay, docs/api.md "Public rooms and quick
// play"): the home screen's card, and the room while it waits for strangers.
//
// The name: strangers see it, and the server seats a player only where the
// name is free, so a shared default ("Player") would make people who never
// typed a name miss each other. The card uses the name the player already
// gave (typed in "New room", used before on this device, or the profile's own)
// and asks for one in the card itself only when there is none.
//
// The wait: a quick-play room is public and starts by itself when its seats
// are taken. Until then it looks for players, it is not a private lobby: no
// invite link, no bots, no start button (the server would let its host do
// those; a player who wants a bot has "Play against the computer").
import { api, seats } from './api.js';
import { esc } from './dom.js';
import { plural, t } from './i18n.js';
import { local, quickPlay } from './profile.js';

/** A room waiting for strangers: public, starting by itself, still in the lobby. */
export const seeking = (room) => room.status === 'lobby' && Boolean(room.options.public && room.options.auto_start);

/** The home screen's card: the name field shows only when there is no name to use. */
export function card() {
  return `<section class="card quickplay">
      <h2>${esc(t('lc.quickplay'))}</h2>
      <p class="muted">${esc(t('lc.quickplay_help'))}</p>
      <form data-form="quickplay" class="stack" novalidate>
        <div id="quickplay-ask" class="stack" hidden>
          <label>${esc(t('home.name'))}<input name="name" id="quickplay-name" maxlength="128" autocomplete="nickname" aria-describedby="quickplay-why"></label>
          <p class="muted small" id="quickplay-why">${esc(t('qp.name_why'))}</p>
        </div>
        <button class="primary big" id="quickplay">${esc(t('lc.quickplay'))}</button>
      </form>
    </section>`;
}

/** The name to play under, or null after asking for it in the card (focus in its field). */
function nameFor(form) {
  const ask = form.querySelector('#quickplay-ask');
  const field = form.querySelector('#quickplay-name');
  if (!ask.hidden) {
    if (field.value.trim()) return field.value.trim();
    field.focus();
    return null;
  }
  const typed = String(document.getElementById('create-name')?.value || '').trim();
  const profile = local();
  const known = typed || (localStorage.getItem('dicecup.name') || '').trim() || (profile && profile.named ? profile.name : '');
  if (known) return known;
  ask.hidden = false;
  form.scrollIntoView({ block: 'nearest' }); // the field and its button in view together
  field.focus({ preventScroll: true });
  return null;
}

/** The card's submit: a seat in a waiting public room (or a new one), then into it. */
export async function play(form, ruleset, go) {
  const name = nameFor(form);
  if (!name) return;
  let played;
  try {
    played = await quickPlay({ ruleset, name }); // with the device's profile: the game reaches its history
  } catch (error) {
    if (/^name_/.test(String(error && error.code))) {
      // a name the server refuses is said next to the card's own field (js/main.js fieldError)
      form.querySelector('#quickplay-ask').hidden = false;
      form.querySelector('#quickplay-name').value = name;
    }
    throw error;
  }
  localStorage.setItem('dicecup.name', played.player.name);
  seats.set(played.room.code, { token: played.token, playerId: played.player.id, name: played.player.name });
  go(`r/${played.room.code}`);
}

/** The lobby's part while the room looks for players: what is happening, and the way out. */
export function waiting(room) {
  const wanted = Math.max(1, room.max_players - room.players.length);
  return `<div class="seeking" id="seeking" role="status">
      <span class="seeking-dots" aria-hidden="true"><i></i><i></i><i></i></span>
      <p><strong id="seeking-title">${esc(plural('qp.looking', wanted))}</strong></p>
      <p class="muted">${esc(t('qp.starts_itself'))}</p>
    </div>
    <button class="quiet" data-action="stop-looking" id="stop-looking">${esc(t('qp.stop'))}</button>`;
}
