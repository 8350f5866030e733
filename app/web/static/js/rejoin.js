// A tab that opens a room without a seat of its own (a new tab, the link
// opened again from a chat app, another device) takes back at once the seat
// this device or its profile holds there, instead of watching its own game:
// first the seat the device remembers (the same token: its other tabs play
// on), else the profile's (POST /api/rooms/{code}/players/{id}/token, docs/api.md
// "Profiles": a new token; the seat's old sockets close). "Watch instead"
// lets a friend use another tab of the same browser: the tab then watches,
// and may join with a name of its own, until it is closed.
import { api, seats } from './api.js';
import { local } from './profile.js';

const watching = (code) => `dicecup.watch.${code}`;
let reclaimedIn = null; // the room whose seat this tab took back on opening it (it offers "Watch instead")

/** Whether this tab took its seat in `code` back by itself (not by the player's choice). */
export const reclaimed = (code) => reclaimedIn === code;

/** The seat this tab takes back in `room` ({token, playerId, name}), or null to watch. */
export async function reclaim(room) {
  const code = room.code;
  reclaimedIn = null;
  if (room.status === 'closed' || sessionStorage.getItem(watching(code))) return null;
  const seated = (id) => room.players.some((p) => p.id === id && !p.bot);
  const remembered = seats.remembered(code);
  if (remembered && seated(remembered.playerId)) {
    seats.set(code, remembered);
    reclaimedIn = code;
    return remembered;
  }
  const profile = local();
  if (!profile) return null;
  try {
    const page = await api.request('GET', 'api/profiles/me/games', { token: profile.token, query: { limit: 1 } });
    const held = page.open.find((seat) => seat.room_code === code && seated(seat.player_id));
    if (!held) return null;
    const path = `api/rooms/${encodeURIComponent(code)}/players/${encodeURIComponent(held.player_id)}/token`;
    const taken = await api.request('POST', path, { token: profile.token });
    const seat = { token: taken.token, playerId: taken.player.id, name: taken.player.name };
    seats.set(code, seat);
    reclaimedIn = code;
    return seat;
  } catch {
    return null; // the profile cannot take it (gone, refused, offline): the tab watches, "Continue as" may still work
  }
}

/** "Watch instead": this tab lets the seat go and watches; the device keeps the seat for its other tabs. */
export function watchInstead(code) {
  reclaimedIn = null;
  sessionStorage.setItem(watching(code), '1');
  seats.leaveTab(code);
}

