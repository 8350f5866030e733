// Transport: the JavaScript SDK (clients/js, served at static/sdk/), with the
// server found relative to the page's <base>, so the client works under any
// root path. Plus the few endpoints the SDK has no helper for, and where a
// tab keeps its seat.
import { DicecupApi, DicecupError, REACTIONS, RoomConnection, RoomStore } from '../sdk/index.js';

export { DicecupError, REACTIONS, RoomConnection, RoomStore };

/** The server's root: where the page was served from (<base href>, the root path). */
export const BASE = new URL(document.baseURI);

/** An absolute URL of an app path ('r/ABC', 'rules/yacht'), under the root path. */
export const appUrl = (path) => new URL(String(path).replace(/^\/+/, ''), BASE);

export const api = new DicecupApi({ baseUrl: BASE });

const room = (code) => DicecupApi.room(code);

/** GET /api/rulesets with labels in `lang`. */
export const rulesets = (lang) => api.request('GET', 'api/rulesets', { query: { lang } });
/** GET /api/rooms/{code}/chances: each player's chance of winning the current game. */
export const chances = (code) => api.request('GET', `${room(code)}/chances`);
/** GET /api/rooms/{code}/games/{number}/analysis: the post-game analysis. */
export const analysis = (code, number) => api.request('GET', `${room(code)}/games/${number}/analysis`);

// A seat token is the only way back into a seat. Each tab holds its own seat
// (sessionStorage), so a friend can join from another tab of the same browser;
// the device also remembers it (localStorage), offered as "continue as".
const key = (code) => `dicecup.seat.${code}`;
const read = (storage, code) => {
  try {
    return JSON.parse(storage.getItem(key(code)));
  } catch {
    return null;
  }
};

export const seats = {
  get: (code) => read(sessionStorage, code),
  remembered: (code) => read(localStorage, code),
  set(code, seat) {
    sessionStorage.setItem(key(code), JSON.stringify(seat));
    localStorage.setItem(key(code), JSON.stringify(seat));
  },
  forget(code) {
    sessionStorage.removeItem(key(code));
    localStorage.removeItem(key(code));
  },
  /** This tab lets the seat go (it watches); the device still remembers it. */
  leaveTab: (code) => sessionStorage.removeItem(key(code)),
};
