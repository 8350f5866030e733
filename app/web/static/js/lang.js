// The language switch in the header: every language in its own name. A choice
// is remembered on this device (localStorage) and applied at once: the catalog
// is swapped and the screen is drawn again from the same state, so a game in
// progress carries on. Listeners of the `dicecup:language` event redraw.
import { LANGUAGES, language, loadCatalog, remember, t } from './i18n.js';

export const LANGUAGE_EVENT = 'dicecup:language';

function options(selected) {
  return Object.entries(LANGUAGES)
    .map(([code, name]) => {
      const option = document.createElement('option');
      option.value = code;
      option.lang = code;
      option.textContent = name; // a language's own name, never translated
      option.selected = code === selected;
      return option;
    });
}

/** Put the switch into `parent` (the header bar); returns the <select>. */
export function mountLanguageSwitch(parent) {
  let select = document.getElementById('lang-switch');
  if (!select) {
    select = document.createElement('select');
    select.id = 'lang-switch';
    select.className = 'lang-switch';
    select.dataset.tLabel = 'lang.label';
    select.append(...options(language()));
    parent.append(select);
    select.addEventListener('change', () => switchLanguage(select.value));
  }
  select.value = language();
  select.setAttribute('aria-label', t('lang.label'));
  select.title = t('lang.label');
  return select;
}

/** Show the UI in `lang` from now on, on this device. */
export async function switchLanguage(lang) {
  remember(lang);
  const url = new URL(location.href);
  if (url.searchParams.has('lang')) {
    // the choice wins over a ?lang= the page was opened with
    url.searchParams.delete('lang');
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  }
  const shown = await loadCatalog(lang);
  const select = document.getElementById('lang-switch');
  if (select) {
    select.value = shown;
    select.title = t('lang.label');
  }
  document.dispatchEvent(new CustomEvent(LANGUAGE_EVENT, { detail: { lang: shown } }));
}
