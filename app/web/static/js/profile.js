// The player who comes back (docs/api.md, "Profiles"): this device's profile
// token (localStorage), made silently on the first visit and sent as
// `Authorization: Bearer` on creating, joining or quick-playing a room so the seat is the
// profile's. Plus the account pages: the profile (name, username and
// password, sign out), sign-in, and the history with its rejoin buttons
// (taking a seat back from any device).
import { forgetPerson, signOut } from './account.js';
import { DicecupError, api, seats } from './api.js';
import { esc } from './dom.js';
import { n, plural, t } from './i18n.js';

const KEY = 'dicecup.profile';

const stored = () => {
  try {
    const value = JSON.parse(localStorage.getItem(KEY));
    return value && typeof value.token === 'string' && typeof value.id === 'string' ? value : null;
  } catch {
    return null;
  }
};

/** This device's profile: {id, token, name, named}, or null while there is none. */
export const local = () => stored();

function keep(profile, token, named) {
  const value = { id: profile.id, token, name: profile.name, named: Boolean(named) };
  localStorage.setItem(KEY, JSON.stringify(value));
  return value;
}

export function forget() {
  localStorage.removeItem(KEY);
}

let pending = null;

/**
 * The device's profile, made silently if there is none (POST /api/profiles).
 * Resolves to null if it cannot be made (the client then plays without one,
 * as old clients do).
 */
export function ensureProfile() {
  const have = stored();
  if (have) return Promise.resolve(have);
  if (!pending) {
    const name = (localStorage.getItem('dicecup.name') || '').trim() || t('pf.default_name');
    pending = api
      .request('POST', 'api/profiles', { body: { name: name.slice(0, 32) } })
      .then((made) => keep(made.profile, made.token, Boolean(localStorage.getItem('dicecup.name'))))
      .catch(() => null)
      .finally(() => (pending = null));
  }
  return pending;
}

/** GET /api/profiles/me; a token the server no longer knows is forgotten (null). */
export async function me() {
  const have = await ensureProfile();
  if (!have) return null;
  try {
    const profile = await api.request('GET', 'api/profiles/me', { token: have.token });
    keep(profile, have.token, have.named);
    return { ...profile, token: have.token };
  } catch (error) {
    if (error instanceof DicecupError && error.status === 401) {
      forget();
      return null;
    }
    throw error;
  }
}

const token = () => stored()?.token || null;

/** The first name a player types (create, join) names a silently made profile too. */
async function adoptName(name) {
  const have = stored();
  if (!have || have.named || !name) return;
  try {
    const renamed = await api.request('PATCH', 'api/profiles/me', { body: { name }, token: have.token });
    keep(renamed, have.token, true);
  } catch {
    // the name stays the default one; the room is made all the same
  }
}

/** POST /api/rooms with the profile token: the host's seat is the profile's
 * (`adopt`: the profile takes the name, if it has none of its own yet). */
export async function createRoom(body, adopt = true) {
  await ensureProfile();
  if (adopt) await adoptName(body.name);
  return api.createRoom(body, token());
}

/** POST /api/rooms/{code}/players with the profile token. */
export async function join(code, name) {
  await ensureProfile();
  await adoptName(name);
  return api.join(code, name, token());
}

/** POST /api/quickplay with the profile token: the seat is the profile's, as on create and join. */
export async function quickPlay(body) {
  await ensureProfile();
  await adoptName(body.name);
  return api.quickPlay(body, token());
}

// ---------------------------------------------------------------- forms and their errors

/** The catalog message for a refusal of a form: 429 says when to try again. */
export function refusal(error) {
  if (!(error instanceof DicecupError)) return t('pf.error.network');
  if (error.code === 'rate_limited') {
    const minutes = Math.max(1, Math.ceil((error.retryAfter || 60) / 60));
    return plural('pf.error.rate_limited', minutes);
  }
  const key = `pf.error.${error.code}`;
  return KNOWN_ERRORS.includes(error.code) ? t(key) : t('pf.error.generic');
}
const KNOWN_ERRORS = ['unauthorized', 'username_taken', 'invalid_request', 'too_large', 'room_closed', 'forbidden', 'player_not_found', 'room_not_found', 'wrong_password', 'server_busy'];

/** Show `message` under the field `name` of `form` (or the form's own line), marking the field invalid. */
export function fieldError(form, name, message) {
  const field = name ? form.querySelector(`[name="${name}"]`) : null;
  const line = form.querySelector(`[data-error-for="${name || '_form'}"]`) || form.querySelector('[data-error-for="_form"]');
  if (field) field.setAttribute('aria-invalid', 'true');
  if (line) {
    line.textContent = message;
    line.hidden = false;
  }
  (field || line)?.focus?.();
}

export function clearErrors(form) {
  for (const field of form.querySelectorAll('[aria-invalid]')) field.removeAttribute('aria-invalid');
  for (const line of form.querySelectorAll('[data-error-for]')) {
    line.textContent = '';
    line.hidden = true;
  }
  const done = form.querySelector('[data-done]');
  if (done) done.hidden = true;
}

/** A 422's field errors: the first field each names, in the form's fields. */
function invalidFields(error) {
  const fields = new Set();
  for (const item of error.errors || []) {
    const loc = Array.isArray(item.loc) ? item.loc : [];
    const name = loc[loc.length - 1];
    if (typeof name === 'string') fields.add(name);
  }
  return [...fields];
}

function field(form, name, label, input, hint = '') {
  // input: the input's other attributes
  const id = `${form}-${name}`;
  return `<div class="field">
      <label for="${id}">${esc(label)}</label>
      <input id="${id}" name="${name}" aria-describedby="${id}-error${hint ? ` ${id}-hint` : ''}" ${input}>
      ${hint ? `<p class="muted small" id="${id}-hint">${esc(hint)}</p>` : ''}
      <p class="field-error" id="${id}-error" data-error-for="${name}" hidden></p>
    </div>`;
}

const formLine = () => '<p class="field-error" data-error-for="_form" role="alert" hidden></p>';

// ---------------------------------------------------------------- the home screen's card

/** The profile's card on the home screen: who you are, and the way to everything about you. */
export function homeCard(node) {
  const draw = (profile) => {
    const name = profile ? profile.name : stored()?.name || '';
    node.innerHTML = `<h2>${esc(t('pf.you'))}</h2>
      <p class="profile-line">${name ? `<strong id="home-profile-name"><bdi>${esc(name)}</bdi></strong>` : ''}${
        profile && profile.username ? ` <span class="muted">${esc(t('pf.signed_in_as', { username: profile.username }))}</span>` : ''
      }</p>
      <nav class="links" aria-label="${esc(t('pf.you'))}">
        <a href="profile" id="link-profile">${esc(t('pf.profile'))}</a>
        <a href="stats" id="link-stats">${esc(t('pf.stats'))}</a>
        <a href="history" id="link-history">${esc(t('pf.history'))}</a>
        <a href="leaderboards" id="link-leaderboards">${esc(t('pf.leaderboards'))}</a>
        ${profile && profile.username ? '' : `<a href="signin" id="link-signin">${esc(t('pf.sign_in'))}</a>`}
      </nav>`;
  };
  node.classList.add('card', 'profile-card');
  node.id = 'profile-card';
  draw(null);
  me()
    .then((profile) => node.isConnected && draw(profile))
    .catch(() => {});
}

// ---------------------------------------------------------------- the profile page

export async function profilePage(app, { go, ask }) {
  document.title = `${t('pf.profile')} · ${t('app.title')}`;
  app.innerHTML = `<section class="card"><h1>${esc(t('pf.profile'))}</h1><p class="muted" aria-busy="true">${esc(t('pf.loading'))}</p></section>`;
  let profile;
  try {
    profile = await me();
  } catch (error) {
    app.innerHTML = `<section class="card"><h1>${esc(t('pf.profile'))}</h1><p role="alert">${esc(refusal(error))}</p></section>`;
    return;
  }
  if (!profile) {
    app.innerHTML = `<section class="card"><h1>${esc(t('pf.profile'))}</h1><p role="alert">${esc(t('pf.error.no_profile'))}</p></section>`;
    return;
  }
  app.innerHTML = `
    <section class="card">
      <h1 id="profile-title" tabindex="-1">${esc(t('pf.profile'))}</h1>
      <form data-pf="rename" class="stack" novalidate>
        ${field('rename', 'name', t('pf.name'), `required maxlength="32" autocomplete="nickname" value="${esc(profile.name)}"`)}
        ${formLine()}
        <p class="done" data-done role="status" hidden>${esc(t('pf.saved'))}</p>
        <button class="primary" id="rename-submit">${esc(t('pf.save_name'))}</button>
      </form>
      <nav class="links">
        <a href="stats" id="profile-stats">${esc(t('pf.stats'))}</a>
        <a href="history">${esc(t('pf.history'))}</a>
        <a href="leaderboards">${esc(t('pf.leaderboards'))}</a>
      </nav>
    </section>
    <section class="card">
      <h2>${esc(t('pf.credentials'))}</h2>
      <p class="muted" id="credentials-state">${esc(profile.username ? t('pf.signed_in_as', { username: profile.username }) : t('pf.credentials_why'))}</p>
      <form data-pf="credentials" class="stack" novalidate>
        ${field('credentials', 'username', t('pf.username'), `required minlength="3" maxlength="32" autocomplete="username" spellcheck="false" autocapitalize="none" value="${esc(profile.username || '')}"`, t('pf.username_rule'))}
        ${profile.username ? field('credentials', 'current_password', t('pf.current_password'), 'type="password" required maxlength="128" autocomplete="current-password"', t('pf.current_password_why')) : ''}
        ${field('credentials', 'password', t('pf.password'), 'type="password" required minlength="8" maxlength="128" autocomplete="new-password"', t('pf.password_rule'))}
        ${formLine()}
        <p class="done" data-done role="status" hidden>${esc(t('pf.credentials_saved'))}</p>
        <button class="primary" id="credentials-submit">${esc(t('pf.save_credentials'))}</button>
      </form>
    </section>
    <section class="card">
      <h2>${esc(t('pf.this_device'))}</h2>
      <p><a href="signin" id="profile-signin">${esc(t('pf.sign_in_other'))}</a></p>
      <p class="row"><button class="danger" id="sign-out" type="button">${esc(t('pf.sign_out'))}</button>
        <button class="danger" id="sign-out-everywhere" type="button">${esc(t('pf.sign_out_everywhere'))}</button></p>
      <p class="muted">${esc(t('pf.sign_out_everywhere_why'))}</p>
    </section>
    <section class="card">
      <h2>${esc(t('pf.your_data'))}</h2>
      <p class="muted">${esc(t('pf.your_data_why'))}</p>
      <p class="row"><button type="button" id="export-data">${esc(t('pf.export'))}</button>
        <button type="button" class="danger" id="delete-profile">${esc(t('pf.delete'))}</button></p>
      <p class="field-error" id="data-error" role="alert" hidden></p>
    </section>`;
  const rename = app.querySelector('[data-pf="rename"]');
  rename.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(rename);
    const name = String(new FormData(rename).get('name')).trim();
    if (!name) return fieldError(rename, 'name', t('pf.error.name_empty'));
    try {
      const updated = await api.request('PATCH', 'api/profiles/me', { body: { name }, token: profile.token });
      keep(updated, profile.token, true);
      rename.querySelector('[data-done]').hidden = false;
    } catch (error) {
      if (error instanceof DicecupError && error.code === 'invalid_request') fieldError(rename, 'name', t('pf.error.name_invalid'));
      else if (error instanceof DicecupError && error.code.startsWith('name_')) fieldError(rename, 'name', t(`error.${error.code}`));
      else fieldError(rename, null, refusal(error));
    }
  });
  const credentials = app.querySelector('[data-pf="credentials"]');
  credentials.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(credentials);
    const data = new FormData(credentials);
    const username = String(data.get('username')).trim();
    const password = String(data.get('password'));
    const current = profile.username ? String(data.get('current_password') || '') : null;
    let bad = false;
    if (current === '') {
      fieldError(credentials, 'current_password', t('pf.error.current_password_empty'));
      bad = true;
    }
    if (!/^[A-Za-z0-9_.-]{3,32}$/.test(username)) {
      fieldError(credentials, 'username', t('pf.error.username_invalid'));
      bad = true;
    }
    if (password.length < 8 || password.length > 128) {
      fieldError(credentials, 'password', t('pf.error.password_invalid'));
      bad = true;
    }
    if (bad) return;
    try {
      const body = current === null ? { username, password } : { username, password, current_password: current };
      const updated = await api.request('POST', 'api/profiles/me/credentials', { body, token: profile.token });
      profile.username = updated.username;
      credentials.querySelector('[data-done]').hidden = false;
      for (const input of credentials.querySelectorAll('[type="password"]')) input.value = '';
      app.querySelector('#credentials-state').textContent = t('pf.signed_in_as', { username: updated.username });
    } catch (error) {
      if (error instanceof DicecupError && error.code === 'username_taken') fieldError(credentials, 'username', t('pf.error.username_taken'));
      else if (error instanceof DicecupError && error.code === 'wrong_password') fieldError(credentials, 'current_password', t('pf.error.wrong_password'));
      else if (error instanceof DicecupError && error.code === 'invalid_request') {
        const fields = invalidFields(error).filter((name) => name === 'username' || name === 'password');
        for (const name of fields.length ? fields : [null]) fieldError(credentials, name, name ? t(`pf.error.${name}_invalid`) : refusal(error));
      } else fieldError(credentials, null, refusal(error));
    }
  });
  app.querySelector('#sign-out').addEventListener('click', async () => {
    const question = profile.username ? t('pf.sign_out_confirm', { username: profile.username }) : t('pf.sign_out_lose');
    if (!(await ask(question, t('pf.sign_out'), t('confirm.no')))) return;
    await signOut(profile.token); // and this browser forgets the person: seats, name, notifications
    go('');
  });
  app.querySelector('#sign-out-everywhere').addEventListener('click', async () => {
    const question = profile.username ? t('pf.sign_out_everywhere_confirm', { username: profile.username }) : t('pf.sign_out_lose');
    if (!(await ask(question, t('pf.sign_out_everywhere'), t('confirm.no')))) return;
    try {
      await signOut(profile.token, true);
    } catch (error) {
      dataError(error);
      return;
    }
    go('');
  });
  const dataError = (error) => {
    const line = app.querySelector('#data-error');
    line.textContent = refusal(error);
    line.hidden = false;
  };
  app.querySelector('#export-data').addEventListener('click', async () => {
    try {
      const data = await api.request('GET', 'api/profiles/me/export', { token: profile.token });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      link.download = `dicecup-profile-${profile.id}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    } catch (error) {
      dataError(error);
    }
  });
  app.querySelector('#delete-profile').addEventListener('click', async () => {
    if (!(await ask(t('pf.delete_confirm', { name: profile.name }), t('pf.delete'), t('confirm.no')))) return;
    try {
      await api.request('DELETE', 'api/profiles/me', { token: profile.token });
    } catch (error) {
      dataError(error);
      return;
    }
    await forgetPerson();
    go('');
  });
}

// ---------------------------------------------------------------- sign-in

export async function signInPage(app, { go }) {
  document.title = `${t('pf.sign_in')} · ${t('app.title')}`;
  const have = stored();
  app.innerHTML = `<section class="card">
      <h1 id="signin-title" tabindex="-1">${esc(t('pf.sign_in'))}</h1>
      <p class="muted">${esc(t('pf.sign_in_why'))}</p>
      <form data-pf="signin" class="stack" novalidate>
        ${field('signin', 'username', t('pf.username'), 'required maxlength="64" autocomplete="username" spellcheck="false" autocapitalize="none"')}
        ${field('signin', 'password', t('pf.password'), 'type="password" required maxlength="128" autocomplete="current-password"')}
        ${formLine()}
        ${have ? `<p class="muted small" id="signin-replaces">${esc(t('pf.sign_in_replaces', { name: have.name }))}</p>` : ''}
        <button class="primary" id="signin-submit">${esc(t('pf.sign_in'))}</button>
      </form>
    </section>`;
  const form = app.querySelector('[data-pf="signin"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const data = new FormData(form);
    const username = String(data.get('username')).trim();
    const password = String(data.get('password'));
    let bad = false;
    if (!username) {
      fieldError(form, 'username', t('pf.error.username_empty'));
      bad = true;
    }
    if (!password) {
      fieldError(form, 'password', t('pf.error.password_empty'));
      bad = true;
    }
    if (bad) return;
    const submit = form.querySelector('button');
    submit.disabled = true;
    try {
      const signed = await api.request('POST', 'api/sessions', { body: { username, password } });
      keep(signed.profile, signed.token, true);
      go('profile', { replace: true }); // signed in: Back leads to where the player was, not to the form
    } catch (error) {
      // The server says the same for a wrong username and a wrong password (no enumeration): so does the client.
      if (error instanceof DicecupError && error.code === 'unauthorized') fieldError(form, 'password', t('pf.error.wrong_credentials'));
      else if (error instanceof DicecupError && error.code === 'invalid_request') {
        for (const name of invalidFields(error)) fieldError(form, name, t(`pf.error.${name === 'password' ? 'password' : 'username'}_empty`));
      } else fieldError(form, null, refusal(error));
    } finally {
      submit.disabled = false;
    }
  });
}

// ---------------------------------------------------------------- history: open seats first, rejoin from anywhere

const date = (iso) => new Date(iso).toLocaleDateString(document.documentElement.lang, { dateStyle: 'medium' });

export async function historyPage(app, { go }) {
  document.title = `${t('pf.history')} · ${t('app.title')}`;
  app.innerHTML = `<section class="card"><h1 id="history-title" tabindex="-1">${esc(t('pf.history'))}</h1><div data-part="open"></div><div data-part="games" aria-busy="true"><p class="muted">${esc(t('pf.loading'))}</p></div></section>`;
  const profile = await ensureProfile();
  const games = app.querySelector('[data-part="games"]');
  if (!profile) {
    games.innerHTML = `<p role="alert">${esc(t('pf.error.no_profile'))}</p>`;
    return;
  }
  let page;
  try {
    page = await api.request('GET', 'api/profiles/me/games', { token: profile.token, query: { limit: 25 } });
  } catch (error) {
    games.innerHTML = `<p role="alert">${esc(refusal(error))}</p>`;
    return;
  }
  const open = app.querySelector('[data-part="open"]');
  open.innerHTML = page.open.length
    ? `<h2>${esc(t('pf.open_seats'))}</h2><ul class="history-open" id="open-seats">${page.open
        .map(
          (seat) => `<li data-room="${esc(seat.room_code)}" data-player="${esc(seat.player_id)}">
            <span><strong>${esc(t('room.title', { code: seat.room_code }))}</strong> · ${esc(t(`ruleset.${seat.ruleset}`))} · <bdi>${esc(seat.name)}</bdi> · ${esc(t(`pf.status.${seat.status}`))}</span>
            <button class="primary small" data-rejoin="${esc(seat.room_code)}" data-player="${esc(seat.player_id)}" data-name="${esc(seat.name)}">${esc(t('pf.rejoin'))}</button></li>`,
        )
        .join('')}</ul>`
    : '';
  const rows = (list) =>
    list
      .map(
        (r) => `<tr data-room="${esc(r.game.room_code)}" data-number="${r.game.number}">
          <td>${esc(date(r.finished_at))}</td><td>${esc(t(`ruleset.${r.ruleset}`))}</td>
          <td>${n(r.score)}</td><td>${r.seats === 1 ? esc(t('pf.solo')) : esc(t('pf.place', { place: r.place, seats: r.seats }))}${r.won && r.seats > 1 ? ` · ${esc(t('pf.won'))}` : ''}</td>
          <td><a href="${esc(r.game.replay.replace(/^\//, ''))}">${esc(t('pf.replay'))}</a></td></tr>`,
      )
      .join('');
  const drawGames = (list, next) => {
    games.removeAttribute('aria-busy');
    games.innerHTML = list.length
      ? `<h2>${esc(t('pf.finished_games'))}</h2><div class="scroll"><table class="history" id="finished-games"><thead><tr>
          <th scope="col">${esc(t('pf.col.date'))}</th><th scope="col">${esc(t('home.ruleset'))}</th><th scope="col">${esc(t('pf.col.score'))}</th><th scope="col">${esc(t('pf.col.place'))}</th><th scope="col">${esc(t('pf.replay'))}</th></tr></thead>
          <tbody>${rows(list)}</tbody></table></div>${next !== null ? `<button id="history-more" data-offset="${next}">${esc(t('pf.more'))}</button>` : ''}`
      : `<p class="muted" id="no-games">${esc(t('pf.no_games'))}</p>`;
  };
  let all = page.games;
  drawGames(all, page.next_offset);
  app.querySelector('section').addEventListener('click', async (event) => {
    const rejoin = event.target.closest('[data-rejoin]');
    const more = event.target.closest('#history-more');
    if (more) {
      more.disabled = true;
      try {
        const next = await api.request('GET', 'api/profiles/me/games', { token: profile.token, query: { offset: Number(more.dataset.offset), limit: 25 } });
        all = all.concat(next.games);
        drawGames(all, next.next_offset);
      } catch (error) {
        more.disabled = false;
        more.insertAdjacentHTML('afterend', `<p role="alert">${esc(refusal(error))}</p>`);
      }
    }
    if (!rejoin) return;
    const code = rejoin.dataset.rejoin;
    const playerId = rejoin.dataset.player;
    const mine = seats.remembered(code);
    if (mine && mine.playerId === playerId) {
      seats.set(code, mine); // this device holds the seat already
      go(`r/${code}`);
      return;
    }
    rejoin.disabled = true;
    try {
      const taken = await api.request('POST', `api/rooms/${encodeURIComponent(code)}/players/${encodeURIComponent(playerId)}/token`, { token: profile.token });
      seats.set(code, { token: taken.token, playerId: taken.player.id, name: taken.player.name });
      go(`r/${code}`);
    } catch (error) {
      rejoin.disabled = false;
      rejoin.insertAdjacentHTML('afterend', `<span class="field-error" role="alert">${esc(refusal(error))}</span>`);
    }
  });
}
