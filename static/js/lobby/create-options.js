// The options of a game created for friends: the time control (live, or a
// correspondence game of days for each move), private or listed,
// rated, a computer player in any seat, and a computer player taking over from one who
// leaves. `createOptions()` gives their fieldset and `body()`, the `POST /api/rooms`
// body they make (docs/protocol.md, 'HTTP').
import { h } from '../dom.js';
import { SEATS } from '../geometry.js';
import { t } from '../i18n.js';
import { account } from '../account.js';
import { levelOptions, seatLabel } from './messages.js';

/** The days for each move a correspondence game offers (docs/correspondence.md). */
export const CORRESPONDENCE_DAYS = [1, 2, 3, 5, 7, 14];
const DEFAULT_DAYS = 3;

function numberField(testid, key, value, min, max, step = 1) {
  const input = h('input', { type: 'number', 'data-testid': testid, value, min, max, step });
  return { input, label: h('label', {}, t(key), ' ', input) };
}

/** The clock's kind and the fields that kind uses (the others hidden); `value()` is the
 * body's `clock`, null for no clock. */
function clockFields() {
  const kind = h('select', { id: 'clock-kind', 'data-testid': 'clock-kind' },
    ['none', 'sudden_death', 'fischer', 'byoyomi', 'correspondence'].map((k) => h('option', { value: k }, t(`clock.kind.${k}`))));
  const mainMin = numberField('clock-main', 'clock.minutes', 10, 0, 600, 0.5);
  const days = h('select', { 'data-testid': 'clock-days' },
    CORRESPONDENCE_DAYS.map((n) => h('option', { value: n, selected: n === DEFAULT_DAYS }, t(n === 1 ? 'clock.dayOption' : 'clock.daysOption', { n }))));
  const daysLabel = h('label', {}, t('clock.days'), ' ', days);
  const inc = numberField('clock-increment', 'clock.increment', 5, 0, 3600);
  const byo = numberField('clock-byoyomi', 'clock.byoyomi', 30, 1, 3600);
  const periods = numberField('clock-periods', 'clock.periods', 3, 1, 10);
  const showFields = () => {
    const k = kind.value;
    mainMin.label.hidden = k === 'none' || k === 'correspondence';
    daysLabel.hidden = k !== 'correspondence';
    inc.label.hidden = k !== 'fischer';
    byo.label.hidden = k !== 'byoyomi';
    periods.label.hidden = k !== 'byoyomi';
  };
  kind.addEventListener('change', showFields);
  showFields();
  return {
    nodes: [h('label', { for: 'clock-kind' }, t('clock.label')), kind, mainMin.label, daysLabel, inc.label, byo.label, periods.label],
    value() {
      const k = kind.value;
      if (k === 'none') return null;
      if (k === 'correspondence') return { kind: k, seconds_per_move: Number(days.value) * 86400 };
      const clock = { kind: k, main_seconds: Number(mainMin.input.value) * 60 };
      if (k === 'fischer') clock.increment_seconds = Number(inc.input.value);
      if (k === 'byoyomi') {
        clock.byoyomi_seconds = Number(byo.input.value);
        clock.periods = Number(periods.input.value);
      }
      return clock;
    },
  };
}

/** The "Game options" fieldset `el` and `body()`, the room they ask for. */
export function createOptions() {
  const clock = clockFields();
  const privateBox = h('input', { type: 'checkbox', 'data-testid': 'private-room' });
  // Rated rooms seat only logged-in players and no bots (docs/accounts.md).
  const ratedBox = h('input', { type: 'checkbox', 'data-testid': 'rated-room', disabled: !account() });
  const takeover = h('input', { type: 'checkbox', 'data-testid': 'bot-takeover' });
  const botSelects = Object.fromEntries(SEATS.map((seat) => [seat, h('select', {
    'data-testid': `create-bot-${seat}`, id: `create-bot-${seat}`,
  }, h('option', { value: '' }, t('lobby.human')), levelOptions())]));

  function body() {
    const out = {};
    if (privateBox.checked) out.private = true;
    const c = clock.value();
    if (c) out.clock = c;
    const bots = {};
    for (const seat of SEATS) if (botSelects[seat].value !== '') bots[seat] = Number(botSelects[seat].value);
    if (Object.keys(bots).length) out.bots = bots;
    if (takeover.checked) out.bot_takeover = true;
    if (ratedBox.checked) {
      out.rated = true;
      delete out.bots;
      delete out.bot_takeover;
    }
    return out;
  }

  const el = h('fieldset', { class: 'more' },
    h('legend', {}, t('lobby.options')),
    h('div', { class: 'create-options' }, clock.nodes),
    h('div', { class: 'create-options' },
      h('label', {}, privateBox, t('lobby.private')),
      h('label', { title: t('lobby.ratedHint') }, ratedBox, t('lobby.rated')),
      account() ? null : h('a', { href: '/account?next=/', class: 'hint', 'data-testid': 'rated-login' }, t('lobby.ratedLogin'))),
    h('div', { class: 'bot-picker' },
      SEATS.map((seat) => h('span', { class: 'pair' }, h('label', { class: `seat-${seat}`, for: `create-bot-${seat}` }, t('lobby.seatPick', { seat: seatLabel(seat) })), botSelects[seat])),
      h('label', {}, takeover, t('lobby.takeover'))));
  return { el, body };
}
