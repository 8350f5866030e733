"""The web client's message catalogs, without a browser: every language has
every key, non-empty, with the same placeholders and the plural forms its
language needs; nothing the client shows bypasses the catalogs; the rules
pages' examples score what the rules engine says. docs/translations.md."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest

from app.rules import RULESETS

STATIC = Path(__file__).resolve().parents[2] / "app" / "web" / "static"
CATALOGS = STATIC / "i18n"
JS = STATIC / "js"

# CLDR cardinal plural categories (what Intl.PluralRules(lang).select can return).
PLURALS = {
    "en": {"one", "other"},
    "my": {"other"},
    "sw": {"one", "other"},
    "gu": {"one", "other"},
    "ar": {"zero", "one", "two", "few", "many", "other"},
    "mn": {"one", "other"},
}
ALL_CATEGORIES = {"zero", "one", "two", "few", "many", "other"}
# The script each language is written in: a translated message shows it.
SCRIPTS = {
    "my": re.compile(r"[\u1000-\u109F]"),
    "gu": re.compile(r"[\u0A80-\u0AFF]"),
    "ar": re.compile(r"[\u0600-\u06FF]"),
    "mn": re.compile(r"[\u0400-\u04FF]"),
}
# Messages that may read the same in every language: names of the game and
# of rule sets used as names by the rule books.
SAME_EVERYWHERE = {"app.title", "ruleset.yahtzee", "box.yahtzee.yahtzee", "box.yatzy.yatzy"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
LETTER = re.compile(r"[^\W\d_]")


def load(lang: str) -> dict[str, object]:
    data = json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def languages_in_client() -> list[str]:
    """The codes listed once in js/i18n.js's LANGUAGES."""
    source = (JS / "i18n.js").read_text(encoding="utf-8")
    block = re.search(r"export const LANGUAGES = \{(.*?)\};", source, re.S)
    assert block, "js/i18n.js must define LANGUAGES"
    return re.findall(r"^\s*(\w+):", block.group(1), re.M)


LANGS = languages_in_client()
ENGLISH = load("en")


def messages(catalog: dict[str, object]) -> dict[str, str]:
    return {key: value for key, value in catalog.items() if not key.startswith("_")}  # type: ignore[misc]


def split_plural(key: str) -> tuple[str, str] | None:
    base, _, category = key.rpartition(".")
    return (base, category) if category in ALL_CATEGORIES else None


def plural_bases(catalog: dict[str, str]) -> set[str]:
    """Messages with plural forms: ``base.other`` and its siblings (``confirm.zero``
    alone is an ordinary key)."""
    return {parts[0] for key in catalog if (parts := split_plural(key)) and f"{parts[0]}.other" in catalog}


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def test_every_language_has_a_catalog_and_only_those() -> None:
    files = sorted(path.stem for path in CATALOGS.glob("*.json"))
    assert sorted(LANGS) == files
    assert set(LANGS) == set(PLURALS), "a new language needs its plural categories in this test"


@pytest.mark.parametrize("lang", LANGS)
def test_catalog_is_complete(lang: str) -> None:
    catalog = load(lang)
    meta = catalog.get("_meta")
    assert isinstance(meta, dict) and meta.get("name") and meta.get("dir") in ("ltr", "rtl")
    assert (meta["dir"] == "rtl") == (lang == "ar")
    english, theirs = messages(ENGLISH), messages(catalog)
    problems: list[str] = []
    for key, value in theirs.items():
        if not isinstance(value, str):
            problems.append(f"{key}: not a string")
    english_bases = plural_bases(english)
    for key, text in english.items():
        parts = split_plural(key)
        if parts and parts[0] in english_bases:
            continue
        if key not in theirs:
            problems.append(f"{key}: missing")
        elif not str(theirs[key]).strip():
            problems.append(f"{key}: empty")
        elif placeholders(str(theirs[key])) != placeholders(text):
            problems.append(
                f"{key}: placeholders {sorted(placeholders(str(theirs[key])))} != {sorted(placeholders(text))}"
            )
    for base in sorted(english_bases):
        wanted = placeholders(english[f"{base}.other"])
        for category in sorted(PLURALS[lang]):
            key = f"{base}.{category}"
            if not str(theirs.get(key, "")).strip():
                problems.append(f"{key}: missing plural form {category}")
                continue
            found = placeholders(str(theirs[key]))
            # A form for one exact number ("one", "two", "zero") may spell the number out, and
            # leave out what English's "one" leaves out (a game of one player: who starts).
            droppable = {"count"} | (wanted - placeholders(english.get(f"{base}.one", english[f"{base}.other"])))
            exact = category in ("zero", "one", "two") and wanted - droppable <= found <= wanted | {"count"}
            if found != wanted and not exact:
                problems.append(f"{key}: placeholders {sorted(found)} != {sorted(wanted)}")
    for key in theirs:
        parts = split_plural(key)
        if parts and parts[0] in english_bases:
            if parts[1] not in PLURALS[lang]:
                problems.append(f"{key}: {lang} has no plural category {parts[1]}")
        elif key not in english:
            problems.append(f"{key}: not in en.json (stale)")
    assert not problems, f"{lang}.json:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en"])
def test_catalog_is_translated(lang: str) -> None:
    """A message copied from English is not a translation: in a language with
    its own script every message shows that script; in Swahili (Latin) a
    message may equal the English only for names."""
    english, theirs = messages(ENGLISH), messages(load(lang))
    script = SCRIPTS.get(lang)
    untranslated = []
    for key, text in theirs.items():
        if key in SAME_EVERYWHERE or not LETTER.search(PLACEHOLDER.sub("", text)):
            continue
        if (script and not script.search(text)) or (not script and text == english.get(key) and len(text) > 6):
            untranslated.append(f"{key}: {text}")
    assert not untranslated, f"{lang}.json has untranslated messages:\n" + "\n".join(untranslated)


# ------------------------------------------------------------ nothing bypasses the catalogs


def js_literals(source: str) -> list[tuple[str, str]]:
    """The string literals of a JS source as (kind, text): kind is "'" or '"' for
    plain strings and "`" for a template literal, whose ${...} parts become NUL."""
    out: list[tuple[str, str]] = []
    i, size = 0, len(source)

    def template(start: int) -> int:
        parts: list[str] = []
        j = start
        while j < size:
            c = source[j]
            if c == "\\":
                parts.append(source[j : j + 2])
                j += 2
            elif c == "`":
                out.append(("`", "".join(parts)))
                return j + 1
            elif source.startswith("${", j):
                parts.append("\0")
                j = code(j + 2, "}")
            else:
                parts.append(c)
                j += 1
        return j

    def code(start: int, until: str | None) -> int:
        j, depth = start, 0
        while j < size:
            c = source[j]
            if source.startswith("//", j):
                j = source.find("\n", j)
                j = size if j < 0 else j
            elif source.startswith("/*", j):
                j = source.index("*/", j) + 2
            elif c in "'\"":
                k = j + 1
                while source[k] != c:
                    k += 2 if source[k] == "\\" else 1
                out.append((c, source[j + 1 : k]))
                j = k + 1
            elif c == "`":
                j = template(j + 1)
            elif c == "/" and re.match(r"[(,=:!&|?{};\[]\s*$", source[max(0, j - 20) : j].rstrip()[-1:] or "("):
                # a regular expression literal
                k = j + 1
                in_class = False
                while k < size and (source[k] != "/" or in_class):
                    if source[k] == "\\":
                        k += 1
                    elif source[k] == "[":
                        in_class = True
                    elif source[k] == "]":
                        in_class = False
                    k += 1
                j = k + 1
            elif c == "{":
                depth += 1
                j += 1
            elif c == "}":
                if until and depth == 0:
                    return j + 1
                depth -= 1
                j += 1
            else:
                j += 1
        return j

    while i < size:
        i = code(i, None)
    return out


SHOWN_ATTRIBUTES = re.compile(r"""\b(title|aria-label|aria-valuetext|placeholder|alt|value)="([^"]*)\"""")


def bypasses(name: str, source: str) -> list[str]:
    """Visible text written into the page by a JS source without the catalog:
    text or shown attributes in HTML templates, and literal text assigned to
    textContent, title or aria-label."""
    problems = []
    for kind, text in js_literals(source):
        if kind != "`" or "<" not in text:
            continue
        for attribute, value in SHOWN_ATTRIBUTES.findall(text):
            if attribute != "value" and LETTER.search(value.replace("\0", "")):
                problems.append(f'{name}: {attribute}="{value}"')
        outside = re.sub(r"<[^>]*>", "\0", re.sub(r"<[^>]*\0[^>]*>", "\0", text))
        for chunk in outside.split("\0"):
            if LETTER.search(chunk):
                problems.append(f"{name}: text {chunk.strip()!r} in a template")
    for match in re.finditer(r"\.(textContent|innerText|title|ariaLabel)\s*=\s*(['\"`])(.*?)\2", source):
        if LETTER.search(re.sub(r"\$\{[^}]*\}", "", match.group(3))):
            problems.append(f"{name}: {match.group(0)}")
    for match in re.finditer(r"""setAttribute\(\s*'(?:aria-label|title|placeholder)'\s*,\s*(['"])(.*?)\1""", source):
        problems.append(f"{name}: {match.group(0)}")
    return problems


def test_the_bypass_scan_finds_text_outside_the_catalogs() -> None:
    bad = """
      const a = `<p>${esc(t('ok.key'))}</p><button title="Close">${n(3)} points</button>`;
      node.textContent = 'Hello';
      other.setAttribute('aria-label', "Dice");
      const fine = `<span class="x ${cls}" data-t="a.b">${esc(t('x'))}</span>`;
    """
    found = bypasses("bad.js", bad)
    assert len(found) == 4, found
    assert any("points" in line for line in found) and any("Close" in line for line in found)


def test_js_renders_no_text_outside_the_catalogs() -> None:
    problems = []
    for path in sorted(JS.glob("*.js")):
        problems += bypasses(path.name, path.read_text(encoding="utf-8"))
    assert not problems, "visible text that bypasses the catalogs:\n" + "\n".join(problems)


def test_js_uses_only_keys_the_catalogs_have() -> None:
    english = messages(ENGLISH)
    bases = plural_bases(english)
    missing = []
    for path in sorted(JS.glob("*.js")):
        source = path.read_text(encoding="utf-8")
        for function, key in re.findall(r"\b(t|plural|has)\(\s*'([\w.]+)'", source):
            if function == "plural" and key not in bases:
                missing.append(f"{path.name}: plural('{key}')")
            elif function == "t" and key not in english:
                missing.append(f"{path.name}: t('{key}')")
        for key in re.findall(r"""data-t(?:-label)?="([\w.]+)\"""", source) + re.findall(
            r"dataset\.tLabel = '([\w.]+)'", source
        ):
            if key not in english:
                missing.append(f"{path.name}: data-t {key}")
    assert not missing, "keys used by the client but not in en.json:\n" + "\n".join(missing)


class _Page(HTMLParser):
    """Text of index.html outside elements whose text comes from the catalog."""

    VOID: ClassVar[set[str]] = {"meta", "link", "input", "br", "img", "hr", "source"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.loose: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        for attribute in ("title", "aria-label", "placeholder", "alt"):
            if LETTER.search(names.get(attribute) or ""):
                self.loose.append(f"<{tag} {attribute}={names[attribute]!r}>")
        if tag not in self.VOID:
            translated = "data-t" in names or tag in ("noscript", "title", "script", "style")
            self.stack.append((tag, translated or any(t for _, t in self.stack)))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if LETTER.search(data) and not any(t for _, t in self.stack):
            self.loose.append(data.strip())


def test_index_html_text_comes_from_the_catalog() -> None:
    page = _Page()
    page.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    assert page.loose == []


# ------------------------------------------------------------ rules pages


def howto_examples() -> dict[str, dict[str, list]]:
    source = (JS / "howto.js").read_text(encoding="utf-8")
    block = re.search(r"// examples:start\nexport const EXAMPLES = (\{.*?\});\n// examples:end", source, re.S)
    assert block
    examples = json.loads(block.group(1))
    assert isinstance(examples, dict)
    return examples


def test_every_rule_set_has_a_rules_page_with_an_example_per_box() -> None:
    examples = howto_examples()
    assert set(examples) == set(RULESETS)
    for name, rules in RULESETS.items():
        assert set(examples[name]) == set(rules.boxes), name
        for box, (dice, points) in examples[name].items():
            assert rules.score(box, tuple(dice)) == points, f"{name}.{box}: {dice}"


def test_rules_page_messages_exist_for_every_box() -> None:
    source = (JS / "howto.js").read_text(encoding="utf-8")
    shared = dict(re.findall(r"'(\w+\.\w+)': '(howto\.\w+)'", source))
    english = messages(ENGLISH)
    missing = []
    for name, rules in RULESETS.items():
        for box in rules.boxes:
            if box in rules.upper_boxes:
                continue
            key = shared.get(f"{name}.{box}", f"howto.{name}.{box}")
            if key not in english:
                missing.append(key)
        if f"rules.{name}" not in english:
            missing.append(f"rules.{name}")
    assert not missing
