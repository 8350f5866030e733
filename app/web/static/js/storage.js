// Whether this browser lets the site keep anything (localStorage and
// sessionStorage): seats, the profile and the language live there. A browser
// that blocks site data (a strict privacy setting, "block all cookies")
// throws on every access; the client then says so instead of stopping on a
// blank page.
import { esc } from './dom.js';
import { t } from './i18n.js';

/** True when both storages can be written and read back. */
export function storageWorks() {
  try {
    const probe = 'dicecup.storage-probe';
    for (const store of [localStorage, sessionStorage]) {
      store.setItem(probe, '1');
      const back = store.getItem(probe);
      store.removeItem(probe);
      if (back !== '1') return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** The message shown in place of the client (in the page's language). */
export function showStorageDenied(root) {
  root.innerHTML = `<section class="card" id="storage-denied" role="alert">
      <h1>${esc(t('storage.denied_title'))}</h1>
      <p>${esc(t('storage.denied'))}</p>
    </section>`;
}
