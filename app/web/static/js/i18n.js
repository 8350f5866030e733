// Message catalogs: every string a person reads comes from static/i18n/<lang>.json (relative to the page's <base>).
// Adding a language is one new catalog file and one line in LANGUAGES (its
// own name for itself, shown in the language switch). docs/translations.md.
export const LANGUAGES = {
  en: 'English',
  my: 'မြန်မာ',
  sw: 'Kiswahili',
  gu: 'ગુજરાતી',
  ar: 'العربية',
  mn: 'Монгол',
};
const FALLBACK = 'en';
// Right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, NKo... and their presentation forms) and direction marks.
const BIDI = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const STORED = 'dicecup.lang';

let catalog = {};
let english = {};
let current = FALLBACK;
let numbers = new Intl.NumberFormat('en');
let rtl = false;

const supported = (tag) => {
  const code = String(tag || '').toLowerCase().split(/[-_]/)[0];
  return Object.prototype.hasOwnProperty.call(LANGUAGES, code) ? code : null;
};

/** The language to show: ?lang=xx, then the one chosen before, then the browser's languages, then English. */
export function chooseLanguage() {
  const asked = supported(new URLSearchParams(location.search).get('lang'));
  if (asked) return asked;
  let stored = null;
  try {
    stored = supported(localStorage.getItem(STORED));
  } catch {
    stored = null;
  }
  if (stored) return stored;
  const browser = (navigator.languages || [navigator.language]).map(supported).find(Boolean);
  return browser || FALLBACK;
}

/** The language shown now. */
export function language() {
  return current;
}

/** Remember a language picked in the switch (or by ?lang=) for the next visits. */
export function remember(lang) {
  try {
    localStorage.setItem(STORED, lang);
  } catch {
    // private mode: the choice lasts for this page only
  }
}

async function fetchCatalog(lang) {
  const response = await fetch(`static/i18n/${lang}.json`);
  if (!response.ok) throw new Error(`catalog ${lang}: ${response.status}`);
  return response.json();
}

/** Load the catalog of `lang` (or the chosen one), set <html lang dir>, and fill [data-t] nodes. */
export async function loadCatalog(lang = chooseLanguage()) {
  const wanted = supported(lang) || FALLBACK;
  if (!Object.keys(english).length) english = await fetchCatalog(FALLBACK);
  catalog = wanted === FALLBACK ? english : await fetchCatalog(wanted).catch(() => english);
  current = catalog === english ? FALLBACK : wanted;
  // Latin digits in every language, as the rule books the game was made from
  // write them (docs/translations.md); grouping and signs follow the language.
  numbers = new Intl.NumberFormat(`${current}-u-nu-latn`);
  document.documentElement.lang = current;
  rtl = Boolean(catalog._meta && catalog._meta.dir === 'rtl');
  document.documentElement.dir = rtl ? 'rtl' : 'ltr';
  for (const node of document.querySelectorAll('[data-t]')) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll('[data-t-label]')) node.setAttribute('aria-label', t(node.dataset.tLabel));
  return current;
}

export function has(key) {
  return Object.prototype.hasOwnProperty.call(catalog, key) || Object.prototype.hasOwnProperty.call(english, key);
}

export function n(value) {
  return numbers.format(value);
}

/** A number with a fixed count of decimals, in the UI's language and digits. */
export function decimal(value, digits = 1) {
  return new Intl.NumberFormat(`${current}-u-nu-latn`, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value);
}

/** The message `key` with `{name}` placeholders filled (numbers formatted for the language).
 * A key missing from a catalog falls back to English (the catalog test keeps that from happening). */
export function t(key, params = {}) {
  let text = key;
  if (Object.prototype.hasOwnProperty.call(catalog, key) && catalog[key]) text = catalog[key];
  else if (Object.prototype.hasOwnProperty.call(english, key)) text = english[key];
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    if (typeof value === 'number') return n(value);
    // A name or box is isolated (FSI ... PDI) in a right-to-left sentence, and
    // in any sentence when it holds right-to-left letters or direction marks,
    // so its letters and digits cannot reorder the sentence around it.
    return rtl || BIDI.test(String(value)) ? `\u2068${value}\u2069` : String(value);
  });
}

/** A message that depends on a count: `key.zero`, `key.one`, `key.few`, ... as the language's plural rules pick. */
export function plural(key, count, params = {}) {
  const rule = new Intl.PluralRules(current).select(count);
  const exact = Object.prototype.hasOwnProperty.call(catalog, `${key}.${rule}`);
  return t(exact ? `${key}.${rule}` : `${key}.other`, { ...params, count });
}

/** A list of names joined the language's way ("Ana, Ben and Chloe"), by the
 * catalog's list.two, list.middle and list.end patterns (Intl.ListFormat has
 * no Burmese or Mongolian in Chromium: it said "and" there). Each name goes
 * through t(), so in a right-to-left language each is isolated (FSI ... PDI). */
export function list(items) {
  const shown = items.map(String);
  if (shown.length < 2) return shown.join('');
  if (shown.length === 2) return t('list.two', { a: shown[0], b: shown[1] });
  let joined = t('list.end', { a: shown[shown.length - 2], b: shown[shown.length - 1] });
  for (let i = shown.length - 3; i >= 0; i -= 1) joined = t('list.middle', { a: shown[i], b: joined });
  return joined;
}

/** A message about a list of names (`{names}`) whose grammar depends on how many
 * there are (Swahili "ameshinda" / "wameshinda", the Arabic dual): its plural
 * forms are picked by the number of names, as `plural` picks them by a count. */
export function names(key, items, params = {}) {
  return plural(key, items.length, { ...params, names: list(items) });
}
