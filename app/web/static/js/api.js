// The REST API (docs/api.md). Errors come back as ApiError with the server's code.
export class ApiError extends Error {
  constructor(status, code, detail) {
    super(detail || code);
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

async function request(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'network', '');
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data.code || 'generic', data.detail || '');
  return data;
}

const room = (code) => `/api/rooms/${encodeURIComponent(code)}`;

export const api = {
  rulesets: (lang) => request('GET', lang ? `/api/rulesets?lang=${encodeURIComponent(lang)}` : '/api/rulesets'),
  createRoom: (body) => request('POST', '/api/rooms', { body }),
  room: (code) => request('GET', room(code)),
  join: (code, name) => request('POST', `${room(code)}/players`, { body: { name } }),
  leave: (code, playerId, token) => request('DELETE', `${room(code)}/players/${encodeURIComponent(playerId)}`, { token }),
  start: (code, token) => request('POST', `${room(code)}/games`, { token }),
  addBot: (code, level, token) => request('POST', `${room(code)}/bots`, { body: { level }, token }),
  hint: (code, token) => request('GET', `${room(code)}/hint`, { token }),
  chances: (code) => request('GET', `${room(code)}/chances`),
  analysis: (code, number) => request('GET', `${room(code)}/games/${number}/analysis`),
  events: (code, after) => request('GET', `${room(code)}/events?after=${after}&limit=1000`),
};

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
};
