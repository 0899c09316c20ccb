// "+15 s" beside the clock of each other player still in a running game with a clock
// (not correspondence): a player still in the game gives that player 15 seconds
// (`give_time`, docs/protocol.md §17). The clocks come back with the next `state`.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { isCorrespondence } from '../clocks.js';
import { who } from './messages.js';

/** What the room view `r` offers each seat's card: null when the reader gives no time
 * now, else `(seat) => button | null`. */
export function giveTimeFor(r) {
  const s = r.state;
  const active = r.model.pos?.active;
  if (s?.status !== 'playing' || !r.you || !active?.has(r.you) || !s.clocks || isCorrespondence(s.clocks)) return null;
  return (seat) => {
    if (seat === r.you || !active.has(seat) || !s.seats?.[seat]) return null;
    const label = t('ctl.give.label', { who: who(seat, r.ctx()) });
    return h('button', {
      type: 'button', class: 'give-time', 'data-testid': `give-time-${seat}`, title: label, 'aria-label': label,
      onclick: () => r.send({ type: 'give_time', seat }),
    }, t('ctl.give.button'));
  };
}
