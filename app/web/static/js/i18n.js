// Message catalogs: every string a person reads comes from /static/i18n/<lang>.json.
// Adding a language is one new catalog file and its code in AVAILABLE.
const AVAILABLE = ['en'];
let catalog = {};
let numbers = new Intl.NumberFormat('en');

export async function loadCatalog() {
  const asked = new URLSearchParams(location.search).get('lang');
  const wanted = [asked, ...(navigator.languages || [navigator.language])]
    .filter(Boolean)
    .map((tag) => tag.toLowerCase().split('-')[0]);
  const lang = wanted.find((code) => AVAILABLE.includes(code)) || 'en';
  const response = await fetch(`/static/i18n/${lang}.json`);
  catalog = await response.json();
  // Numbers follow the browser's locale, whatever the catalog's language.
  numbers = new Intl.NumberFormat(navigator.language || lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = (catalog._meta && catalog._meta.dir) || 'ltr';
  for (const node of document.querySelectorAll('[data-t]')) node.textContent = t(node.dataset.t);
}

export function has(key) {
  return Object.prototype.hasOwnProperty.call(catalog, key);
}

export function n(value) {
  return numbers.format(value);
}

/** The message `key` with `{name}` placeholders filled (numbers formatted for the locale). */
export function t(key, params = {}) {
  const text = has(key) ? catalog[key] : key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === 'number' ? n(value) : String(value);
  });
}

/** A message that depends on a count: `key.one`, `key.few`, ... as the language's plural rules pick. */
export function plural(key, count, params = {}) {
  const rule = new Intl.PluralRules(document.documentElement.lang).select(count);
  return t(has(`${key}.${rule}`) ? `${key}.${rule}` : `${key}.other`, { ...params, count });
}

/** A list of names joined the locale's way ("Ana and Ben"). */
export function list(items) {
  try {
    return new Intl.ListFormat(document.documentElement.lang, { type: 'conjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}
