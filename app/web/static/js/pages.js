// The pages about players who come back, by path (below the root path):
// /profile, /signin, /history, /stats, /stats/{id}, /leaderboards and the
// replay /r/{code}/games/{n}. main.js asks pageFor(path) before its own routes,
// and shows notFoundPage for an address that is none of them nor its own.
import { esc } from './dom.js';
import { t } from './i18n.js';
import { historyPage, profilePage, signInPage } from './profile.js';
import { replayPage } from './replay.js';
import { leaderboardPage, statsPage } from './stats.js';

export { homeCard, createRoom, join, quickPlay, ensureProfile } from './profile.js';
export { noteEvent, noteRoom } from './stats.js';

/** A function drawing the page at `path` into `app`, or null if the path is not one of these pages. */
export function pageFor(path) {
  const replay = path.match(/^\/r\/([A-Za-z0-9]+)\/games\/(\d{1,6})\/?$/);
  if (replay) return (app, env) => replayPage(app, { ...env, code: replay[1].toUpperCase(), number: Number(replay[2]) });
  const stats = path.match(/^\/stats(?:\/([A-Za-z0-9_-]{1,32}))?\/?$/);
  if (stats) return (app, env) => statsPage(app, { ...env, id: stats[1] || null });
  const simple = { '/profile': profilePage, '/signin': signInPage, '/history': historyPage, '/leaderboards': leaderboardPage };
  const page = simple[path.replace(/\/$/, '') || '/'];
  return page ? (app, env) => page(app, env) : null;
}

/** An address the app does not have (the server answers it with 404): said, with the way home. */
export function notFoundPage(app) {
  document.title = `${t('nf.title')} · ${t('app.title')}`;
  app.innerHTML = `<section class="card not-found" id="not-found">
      <h1 id="not-found-title" tabindex="-1">${esc(t('nf.title'))}</h1>
      <p>${esc(t('nf.text'))}</p>
      <p><a href="./" id="not-found-home">${esc(t('nf.home'))}</a></p>
    </section>`;
}
