// How to play: one page per rule set (/rules/<name>), written from the game's
// rules (docs/translations.md) in every catalog language, with an example of
// each box's scoring. The examples are checked against the rules engine by
// tests/web/test_catalogs.py.
import { dieSvg } from './dice.js';
import { n, t } from './i18n.js';

// examples:start
export const EXAMPLES = {
  "yahtzee": {
    "ones": [[1, 1, 2, 5, 6], 2], "twos": [[2, 2, 2, 4, 5], 6], "threes": [[3, 3, 3, 2, 4], 9],
    "fours": [[4, 4, 1, 3, 6], 8], "fives": [[5, 5, 5, 5, 2], 20], "sixes": [[6, 6, 6, 1, 2], 18],
    "three_of_a_kind": [[4, 4, 4, 4, 2], 18], "four_of_a_kind": [[6, 6, 6, 6, 3], 27],
    "full_house": [[2, 2, 2, 5, 5], 25], "small_straight": [[1, 2, 3, 4, 6], 30],
    "large_straight": [[2, 3, 4, 5, 6], 40], "yahtzee": [[3, 3, 3, 3, 3], 50], "chance": [[2, 2, 2, 5, 5], 16]
  },
  "yacht": {
    "yacht": [[4, 4, 4, 4, 4], 50], "big_straight": [[2, 3, 4, 5, 6], 30], "little_straight": [[1, 2, 3, 4, 5], 30],
    "four_of_a_kind": [[4, 4, 4, 4, 1], 17], "full_house": [[3, 3, 3, 6, 6], 21], "choice": [[1, 3, 4, 5, 6], 19],
    "sixes": [[6, 6, 6, 1, 2], 18], "fives": [[5, 5, 5, 5, 2], 20], "fours": [[4, 4, 1, 3, 6], 8],
    "threes": [[3, 3, 3, 2, 4], 9], "twos": [[2, 2, 2, 4, 5], 6], "ones": [[1, 1, 2, 5, 6], 2]
  },
  "yatzy": {
    "ones": [[1, 1, 2, 5, 6], 2], "twos": [[2, 2, 2, 4, 5], 6], "threes": [[3, 3, 3, 2, 4], 9],
    "fours": [[4, 4, 1, 3, 6], 8], "fives": [[5, 5, 5, 5, 2], 20], "sixes": [[6, 6, 6, 1, 2], 18],
    "one_pair": [[3, 3, 5, 5, 1], 10], "two_pairs": [[3, 3, 5, 5, 1], 16], "three_of_a_kind": [[4, 4, 4, 2, 6], 12],
    "four_of_a_kind": [[2, 2, 2, 2, 5], 8], "small_straight": [[1, 2, 3, 4, 5], 15],
    "large_straight": [[2, 3, 4, 5, 6], 20], "full_house": [[2, 2, 3, 3, 3], 13], "chance": [[1, 3, 4, 5, 6], 19],
    "yatzy": [[6, 6, 6, 6, 6], 50]
  }
};
// examples:end

const FACES = { ones: 1, twos: 2, threes: 3, fours: 4, fives: 5, sixes: 6 };

// Boxes that score the same way in several rule sets share one message.
const SHARED = {
  'yahtzee.three_of_a_kind': 'howto.three_sum',
  'yahtzee.four_of_a_kind': 'howto.four_sum',
  'yacht.four_of_a_kind': 'howto.four_sum',
  'yahtzee.chance': 'howto.sum_any',
  'yacht.choice': 'howto.sum_any',
  'yatzy.chance': 'howto.sum_any',
  'yahtzee.yahtzee': 'howto.five_50',
  'yacht.yacht': 'howto.five_50',
  'yatzy.yatzy': 'howto.five_50',
};

// The paragraphs after the box table, per rule set.
const NOTES = {
  yahtzee: ['howto.yahtzee.upper_bonus', 'howto.yahtzee.bonus', 'howto.yahtzee.joker', 'howto.yahtzee.joker_example', 'howto.yahtzee.options'],
  yacht: ['howto.yacht.no_bonus', 'howto.yacht.example_turn'],
  yatzy: ['howto.yatzy.upper_bonus'],
};

const esc = (value) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

const boxLabel = (ruleset, box) => t(`box.${ruleset}.${box}`);

function scoring(ruleset, box) {
  if (box in FACES) return t('howto.upper', { face: FACES[box] });
  return t(SHARED[`${ruleset}.${box}`] || `howto.${ruleset}.${box}`);
}

function example(ruleset, box) {
  const [dice, points] = EXAMPLES[ruleset][box];
  const text = t('howto.example', { dice: dice.map(n).join('-'), points });
  // The dice read left to right like the rule books' 1-2-3-4-5, in every language.
  return `<span class="mini-dice" dir="ltr" aria-hidden="true">${dice.map(dieSvg).join('')}</span>
    <span class="example-text">${esc(text)}</span>`;
}

/** The rules page of one rule set (as GET /api/rulesets describes it), as HTML. */
export function howToPlay(rules) {
  const name = rules.name;
  const title = t('howto.title', { ruleset: t(`ruleset.${name}`) });
  const rows = rules.boxes
    .map(
      (box) => `<tr id="howto-${esc(box.id)}"><th scope="row">${esc(boxLabel(name, box.id))}</th>
        <td>${esc(scoring(name, box.id))}</td><td class="example">${example(name, box.id)}</td></tr>`,
    )
    .join('');
  const notes = (NOTES[name] || []).map((key) => `<p>${esc(t(key))}</p>`).join('');
  return `<article class="card howto" id="howto" data-ruleset="${esc(name)}">
      <h1>${esc(title)}</h1>
      <p class="lead">${esc(t(`rules.${name}`))}</p>
      <h2>${esc(t('howto.play_title'))}</h2>
      <p>${esc(t('howto.players'))}</p>
      <p>${esc(t('howto.turn'))}</p>
      <h2>${esc(t('howto.boxes_title'))}</h2>
      <table class="howto-boxes"><thead><tr><th scope="col">${esc(t('card.box'))}</th><th scope="col">${esc(t('howto.col_score'))}</th>
        <th scope="col">${esc(t('howto.col_example'))}</th></tr></thead><tbody>${rows}</tbody></table>
      <h2>${esc(t('howto.end_title'))}</h2>
      ${notes}
      <p>${esc(t('howto.end', { rounds: rules.rounds }))}</p>
      <p><a href="./" id="howto-back">${esc(t('howto.back'))}</a></p>
    </article>`;
}
