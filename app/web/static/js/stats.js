// A profile's stats per rule set (GET /api/profiles/{id}/stats), the
// leaderboards (GET /api/leaderboards/{ruleset}), and the celebration of a new
// personal best at the end of a solo game.
import { DicecupError, api } from './api.js';
import { esc } from './dom.js';
import { confetti, play } from './feel.js';
import { decimal, n, plural, t } from './i18n.js';
import { ensureProfile, local, refusal } from './profile.js';

const percent = (value) => `${decimal(value * 100, 0)}%`;
const date = (iso) => new Date(iso).toLocaleDateString(document.documentElement.lang, { dateStyle: 'medium' });
const appPath = (path) => String(path).replace(/^\/+/, '');

/** The five-of-a-kind box's name in a rule set (Yahtzee, Yacht, Yatzy). */
const fiveLabel = (ruleset) => t(`box.${ruleset}.${ruleset}`);

function histogram(bars) {
  const most = Math.max(1, ...bars.map((bar) => bar.games));
  return `<ol class="histogram" role="list">${bars
    .map(
      (bar) => `<li data-from="${bar.from}" data-games="${bar.games}">
        <span class="bar" style="--share: ${(bar.games / most).toFixed(3)}" aria-hidden="true"></span>
        <span class="range">${n(bar.from)}–${n(bar.to)}</span>
        <span class="count">${esc(plural('pf.games', bar.games))}</span></li>`,
    )
    .join('')}</ol>`;
}

function rulesetCard(ruleset, stats, rules) {
  const facts = [
    ['games', t('pf.stat.games'), n(stats.games)],
    ['wins', t('pf.stat.wins'), n(stats.wins)],
    ['win-rate', t('pf.stat.win_rate'), percent(stats.win_rate)],
    // null: no full card yet (a game that ended because everyone else resigned is left out of these)
    ['average', t('pf.stat.average'), stats.average === null ? '–' : decimal(stats.average, 1)],
    ['best', t('pf.stat.best'), stats.best === null ? '–' : n(stats.best)],
    ['solo-best', t('pf.stat.solo_best'), stats.solo_best === null ? '–' : n(stats.solo_best)],
    ['yahtzees', t('pf.stat.fives', { box: fiveLabel(ruleset) }), n(stats.yahtzees)],
  ];
  if (!rules || rules.upper_bonus) facts.push(['upper-bonus', t('pf.stat.upper_bonus_rate'), stats.upper_bonus_rate === null ? '–' : percent(stats.upper_bonus_rate)]);
  return `<section class="card stats" data-ruleset="${esc(ruleset)}" id="stats-${esc(ruleset)}">
      <h2>${esc(t(`ruleset.${ruleset}`))}</h2>
      <dl class="facts">${facts.map(([key, label, value]) => `<div data-stat="${key}"><dt>${esc(label)}</dt><dd>${esc(value)}</dd></div>`).join('')}</dl>
      <h3>${esc(t('pf.stat.histogram'))}</h3>
      ${histogram(stats.histogram)}
    </section>`;
}

/** /stats (this device's profile) or /stats/{id} (anyone's). */
export async function statsPage(app, { rulesets, id }) {
  document.title = `${t('pf.stats')} · ${t('app.title')}`;
  app.innerHTML = `<section class="card"><h1 id="stats-title" tabindex="-1">${esc(t('pf.stats'))}</h1><p class="muted" aria-busy="true">${esc(t('pf.loading'))}</p></section>`;
  const profileId = id || (await ensureProfile())?.id;
  const head = app.querySelector('section');
  if (!profileId) {
    head.querySelector('p').outerHTML = `<p role="alert">${esc(t('pf.error.no_profile'))}</p>`;
    return;
  }
  let profile, stats;
  try {
    [profile, stats] = await Promise.all([
      api.request('GET', `api/profiles/${encodeURIComponent(profileId)}`),
      api.request('GET', `api/profiles/${encodeURIComponent(profileId)}/stats`),
    ]);
  } catch (error) {
    const text = error instanceof DicecupError && error.code === 'profile_not_found' ? t('pf.error.profile_not_found') : refusal(error);
    head.querySelector('p').outerHTML = `<p role="alert">${esc(text)}</p>`;
    return;
  }
  const ratings = Object.entries(profile.ratings);
  head.innerHTML = `<h1 id="stats-title" tabindex="-1">${esc(t('pf.stats_of', { name: profile.name }))}</h1>
    ${ratings.length ? `<ul class="ratings">${ratings.map(([rs, r]) => `<li data-ruleset="${esc(rs)}">${esc(t('pf.rating_of', { ruleset: t(`ruleset.${rs}`), rating: t('pf.rating_value', { mu: decimal(r.mu, 1), sigma: decimal(r.sigma, 1) }) }))}</li>`).join('')}</ul>` : ''}
    <p><a href="leaderboards">${esc(t('pf.leaderboards'))}</a></p>`;
  const names = Object.keys(rulesets).filter((rs) => rs in stats.rulesets);
  const cards = names.map((rs) => rulesetCard(rs, stats.rulesets[rs], rulesets[rs])).join('');
  head.insertAdjacentHTML('afterend', cards || `<section class="card"><p class="muted" id="no-stats">${esc(t('pf.no_games'))}</p></section>`);
}

// ---------------------------------------------------------------- leaderboards

/** The entries whose name alone does not tell them apart: a name shown twice on the page, or a
 * default one (a player who never typed a name is "Player"): each gets a tag from its profile id. */
function alike(entries) {
  const key = (name) => name.trim().toLowerCase();
  const defaults = new Set([t('pf.default_name'), t('sr.default_name')].map(key));
  const counts = new Map();
  for (const entry of entries) counts.set(key(entry.name), (counts.get(key(entry.name)) || 0) + 1);
  return new Set(entries.filter((e) => counts.get(key(e.name)) > 1 || defaults.has(key(e.name))).map((e) => e.profile_id));
}

export async function leaderboardPage(app, { rulesets }) {
  document.title = `${t('pf.leaderboards')} · ${t('app.title')}`;
  const params = new URLSearchParams(location.search);
  const names = Object.keys(rulesets);
  const state = {
    ruleset: names.includes(params.get('ruleset')) ? params.get('ruleset') : names[0] || 'yahtzee',
    kind: params.get('kind') === 'rating' ? 'rating' : 'best',
    period: ['month', 'week'].includes(params.get('period')) ? params.get('period') : 'all',
    offset: Math.max(0, Number(params.get('offset')) || 0),
    limit: Math.min(100, Math.max(1, Number(params.get('limit')) || 25)),
  };
  const select = (name, options) =>
    `<label>${esc(t(`pf.board.${name}`))}<select id="board-${name}" name="${name}">${options
      .map(([value, label]) => `<option value="${esc(value)}" ${state[name] === value ? 'selected' : ''}>${esc(label)}</option>`)
      .join('')}</select></label>`;
  app.innerHTML = `<section class="card">
      <h1 id="board-title" tabindex="-1">${esc(t('pf.leaderboards'))}</h1>
      <form class="row" id="board-form">
        ${select('ruleset', names.map((rs) => [rs, t(`ruleset.${rs}`)]))}
        ${select('kind', [['best', t('pf.board.kind_best')], ['rating', t('pf.board.kind_rating')]])}
        ${select('period', [['all', t('pf.board.period_all')], ['month', t('pf.board.period_month')], ['week', t('pf.board.period_week')]])}
      </form>
      <div id="board" aria-live="polite"></div>
    </section>`;
  const board = app.querySelector('#board');
  const mine = local()?.id;
  let latest = 0; // the newest load: an older one's answer that comes after it is dropped
  async function load() {
    const ticket = ++latest;
    const query = new URLSearchParams({ ruleset: state.ruleset, kind: state.kind, period: state.period });
    if (state.offset) query.set('offset', String(state.offset));
    if (state.limit !== 25) query.set('limit', String(state.limit));
    history.replaceState({}, '', `?${query}`);
    board.setAttribute('aria-busy', 'true');
    let page;
    try {
      page = await api.request('GET', `api/leaderboards/${encodeURIComponent(state.ruleset)}`, {
        query: { kind: state.kind, period: state.period, offset: state.offset, limit: state.limit },
      });
    } catch (error) {
      if (ticket !== latest) return;
      board.removeAttribute('aria-busy');
      board.innerHTML = `<p role="alert">${esc(refusal(error))}</p>`;
      return;
    }
    if (ticket !== latest) return; // the reader chose another board meanwhile
    board.removeAttribute('aria-busy');
    const value = (entry) =>
      state.kind === 'best'
        ? n(entry.score)
        : `${decimal(entry.rating.ordinal, 1)} <span class="muted small">(${esc(t('pf.rating_value', { mu: decimal(entry.rating.mu, 1), sigma: decimal(entry.rating.sigma, 1) }))})</span>`;
    const tagged = alike(page.entries);
    const rows = page.entries
      .map(
        (entry) => `<tr data-rank="${entry.rank}" data-profile="${esc(entry.profile_id)}" class="${entry.profile_id === mine ? 'mine' : ''}">
          <td>${n(entry.rank)}</td>
          <td class="name${/\S{17,}/.test(entry.name) ? ' long' : ''}"><a href="stats/${esc(entry.profile_id)}"><bdi>${esc(entry.name)}</bdi></a>${tagged.has(entry.profile_id) ? ` <span class="muted small profile-tag" dir="ltr">#${esc(entry.profile_id.slice(0, 4))}</span>` : ''}
            <span class="when">${esc(date(entry.at))}</span></td>
          <td class="value">${value(entry)}</td>
          <td class="date">${esc(date(entry.at))}</td>
          <td>${entry.game ? `<a class="replay-link" href="${esc(appPath(entry.game.replay))}">${esc(t('pf.replay'))}</a>` : ''}</td></tr>`,
      )
      .join('');
    const pager = `<nav class="row pager" aria-label="${esc(t('pf.board.pages'))}">
        <button type="button" id="board-prev" ${page.offset > 0 ? '' : 'disabled'}>${esc(t('pf.board.prev'))}</button>
        <button type="button" id="board-next" ${page.next_offset !== null ? '' : 'disabled'}>${esc(t('pf.board.next'))}</button></nav>`;
    board.innerHTML = page.entries.length
      ? `<div class="scroll"><table class="leaderboard" id="board-table"><thead><tr>
          <th scope="col">${esc(t('pf.board.rank'))}</th><th scope="col">${esc(t('pf.board.player'))}</th>
          <th scope="col">${esc(state.kind === 'best' ? t('pf.col.score') : t('pf.board.rating'))}</th>
          <th scope="col" class="date">${esc(t('pf.col.date'))}</th><th scope="col">${esc(t('pf.replay'))}</th></tr></thead>
          <tbody>${rows}</tbody></table></div>${pager}`
      : `<p class="muted" id="board-empty">${esc(t('pf.board.empty'))}</p>${page.offset > 0 ? pager : ''}`;
    board.querySelector('#board-prev')?.addEventListener('click', () => {
      state.offset = Math.max(0, state.offset - state.limit);
      load();
    });
    board.querySelector('#board-next')?.addEventListener('click', () => {
      state.offset = page.next_offset;
      load();
    });
  }
  app.querySelector('#board-form').addEventListener('change', (event) => {
    state[event.target.name] = event.target.value;
    state.offset = 0;
    load();
  });
  app.querySelector('#board-form').addEventListener('submit', (event) => event.preventDefault());
  await load();
}

// ---------------------------------------------------------------- a new personal best

const before = new Map(); // `${code}/${number}` -> the solo best before that game (null: none)

async function soloBest(ruleset) {
  const profile = local();
  if (!profile) return undefined;
  try {
    const stats = await api.request('GET', `api/profiles/${encodeURIComponent(profile.id)}/stats`, { query: { ruleset } });
    return stats.rulesets[ruleset]?.solo_best ?? null;
  } catch {
    return undefined;
  }
}

const solo = (room, seat) => Boolean(seat && room && room.max_players === 1 && room.players.length === 1);

/** A room opened or a game began: note the player's solo best before it, to tell a new one at the end. */
export async function noteRoom(room, seat) {
  if (!solo(room, seat) || !room.game || room.status !== 'playing') return;
  const key = `${room.code}/${room.game.number}`;
  if (before.has(key)) return;
  before.set(key, undefined);
  before.set(key, await soloBest(room.ruleset));
}

/** The room's event: at a solo game's end, celebrate a new personal best. */
export async function noteEvent(event, room, seat) {
  if (!solo(room, seat)) return;
  if (event.type === 'game_started') {
    const key = `${room.code}/${event.data.number}`;
    before.set(key, await soloBest(room.ruleset));
    return;
  }
  if (event.type !== 'game_finished' || !room.game) return;
  const key = `${room.code}/${room.game.number}`;
  const previous = before.get(key);
  if (previous === undefined) return; // not known: no claim
  const total = event.data.totals[seat.playerId];
  if (typeof total !== 'number' || (previous !== null && total <= previous)) return;
  // The results are recorded right after the event goes out: ask until they are there.
  for (let attempt = 0; attempt < 8; attempt++) {
    const now = await soloBest(room.ruleset);
    if (now === total) return celebrate(total, previous, room);
    if (typeof now === 'number' && now > total) return;
    await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
  }
}

function celebrate(total, previous, room) {
  document.getElementById('new-best')?.remove();
  const node = document.createElement('section');
  node.id = 'new-best';
  node.className = 'new-best';
  node.setAttribute('role', 'status');
  node.dataset.total = String(total);
  node.innerHTML = `${confetti()}
    <p class="big">${esc(t('pf.new_best', { total, ruleset: t(`ruleset.${room.ruleset}`) }))}</p>
    <p>${esc(previous === null ? t('pf.first_best') : t('pf.beat_best', { previous, gain: total - previous }))}</p>
    <p class="row"><a href="stats">${esc(t('pf.stats'))}</a> <button type="button" id="new-best-close">${esc(t('pf.close'))}</button></p>`;
  document.body.append(node);
  play('fanfare');
  node.querySelector('#new-best-close').addEventListener('click', () => node.remove());
}
