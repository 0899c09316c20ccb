// Setting up a position by hand: a palette of pieces, hands, player to move, active
// players, alliance and castling rights; the position string (RULES §13.3) is written
// here and checked by the server (`POST /api/replay` with the position and no actions).
import { h } from './dom.js';
import { CELLS, SEATS } from './geometry.js';
import { HAND_ORDER } from './position.js';
import { t } from './i18n.js';
import { pieceSvg } from './pieces.js';

const LETTER = { first: 'F', middle: 'M', last: 'L' };
const OWNER_LETTER = { first: 'f', middle: 'm', last: 'l' };
const KINDS = ['K', 'R', 'B', 'G', 'S', 'N', 'L', 'P'];
const PROMOTABLE = new Set(['K', 'R', 'B', 'S', 'L', 'P']);

/** Writes a position (the shape parsePosition returns) as a position string. */
export function writePosition(pos) {
  const ranks = [];
  let rank = -1;
  let text = '';
  let empty = 0;
  const flush = () => { if (empty) { text += String(empty); empty = 0; } };
  for (const { r, name } of CELLS) { // rank by rank, highest file first (§13.3 order)
    if (r !== rank) {
      if (rank >= 0) { flush(); ranks.push(text); }
      rank = r;
      text = '';
    }
    const p = pos.board.get(name);
    if (!p) { empty += 1; continue; }
    flush();
    text += `${OWNER_LETTER[p.owner]}${p.promoted ? '+' : ''}${p.kind}`;
  }
  flush();
  ranks.push(text);
  const hand = (seat) => {
    const parts = HAND_ORDER.filter((k) => (pos.hands[seat]?.[k] ?? 0) > 0)
      .map((k) => `${pos.hands[seat][k] > 1 ? pos.hands[seat][k] : ''}${k}`);
    return parts.length ? parts.join('') : '-';
  };
  const letters = (set) => SEATS.filter((s) => set.has(s)).map((s) => LETTER[s]).join('') || '-';
  return [
    ranks.join('/'),
    pos.toMove ? LETTER[pos.toMove] : '-',
    SEATS.map(hand).join('/'),
    letters(pos.active),
    pos.alliance ? letters(new Set(pos.alliance)) : '-',
    letters(pos.castling),
  ].join(' ');
}

/**
 * The editor's controls. `pos` is edited in place; `onChange()` is called after every
 * change (the page redraws the board). `cellClicked(cell)` applies the chosen tool.
 */
export class PositionEditor {
  constructor(pos, { onChange, validate }) {
    this.pos = pos;
    this.onChange = onChange;
    this.validate = validate;
    this.tool = { owner: 'middle', kind: 'P', promoted: false, erase: false };
    this.element = h('div', { class: 'editor', 'data-testid': 'editor' });
    this.render();
  }

  cellClicked(cell) {
    const here = this.pos.board.get(cell);
    const { owner, kind, erase } = this.tool;
    const promoted = this.tool.promoted && PROMOTABLE.has(kind);
    if (erase || (here && here.owner === owner && here.kind === kind && here.promoted === promoted)) {
      this.pos.board.delete(cell);
    } else {
      this.pos.board.set(cell, { owner, kind, promoted });
    }
    this.onChange();
  }

  setTool(changes) {
    this.tool = { ...this.tool, ...changes };
    this.render();
  }

  render() {
    const tool = this.tool;
    const pieceButton = (kind) => {
      const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      svg.setAttribute('viewBox', '-10 -10 20 20');
      svg.setAttribute('aria-hidden', 'true');
      svg.append(pieceSvg({ owner: tool.owner, kind, promoted: tool.promoted && PROMOTABLE.has(kind) }, 0));
      return h('button', {
        type: 'button', 'data-testid': `tool-${kind}`, 'aria-pressed': String(!tool.erase && tool.kind === kind),
        'aria-label': t(`piece.${tool.promoted && PROMOTABLE.has(kind) ? '+' : ''}${kind}`),
        title: t(`piece.${tool.promoted && PROMOTABLE.has(kind) ? '+' : ''}${kind}`),
        onclick: () => this.setTool({ kind, erase: false }),
      }, svg);
    };
    const ownerSelect = h('select', {
      id: 'editor-owner', 'data-testid': 'editor-owner',
      onchange: (e) => this.setTool({ owner: e.target.value, erase: false }),
    }, SEATS.map((s) => h('option', { value: s, selected: s === tool.owner }, t(`seat.${s}`))));
    const promotedBox = h('input', {
      type: 'checkbox', id: 'editor-promoted', 'data-testid': 'editor-promoted', checked: tool.promoted,
      onchange: (e) => this.setTool({ promoted: e.target.checked }),
    });

    const handGrid = h('div', { class: 'hand-editor', role: 'group', 'aria-label': t('editor.hands') },
      h('span', {}), HAND_ORDER.map((k) => h('span', { 'aria-hidden': 'true' }, t(`piece.short.${k}`))),
      SEATS.flatMap((seat) => [
        h('span', {}, t(`seat.${seat}`)),
        ...HAND_ORDER.map((k) => h('input', {
          type: 'number', min: 0, max: 18, value: this.pos.hands[seat]?.[k] ?? 0,
          'data-testid': `hand-${seat}-${k}`,
          'aria-label': t('editor.handCount', { seat: t(`seat.${seat}`), piece: t(`piece.${k}`) }),
          onchange: (e) => {
            const n = Math.max(0, Math.min(18, Math.floor(Number(e.target.value) || 0)));
            this.pos.hands[seat] = { ...this.pos.hands[seat], [k]: n };
            if (!n) delete this.pos.hands[seat][k];
            this.onChange();
          },
        })),
      ]));

    const toMove = h('select', {
      id: 'editor-to-move', 'data-testid': 'editor-to-move',
      onchange: (e) => { this.pos.toMove = e.target.value; this.onChange(); },
    }, SEATS.map((s) => h('option', { value: s, selected: s === this.pos.toMove }, t(`seat.${s}`))));
    const alliance = h('select', {
      id: 'editor-alliance', 'data-testid': 'editor-alliance',
      onchange: (e) => { this.pos.alliance = e.target.value ? e.target.value.split(',') : null; this.onChange(); },
    }, h('option', { value: '' }, t('editor.noAlliance')),
    [['first', 'middle'], ['first', 'last'], ['middle', 'last']].map((pair) => h('option', {
      value: pair.join(','), selected: this.pos.alliance?.join(',') === pair.join(','),
    }, t('editor.allianceOf', { a: t(`seat.${pair[0]}`), b: t(`seat.${pair[1]}`) }))));
    const flagBoxes = (key, labelKey) => h('fieldset', { class: 'row' }, h('legend', {}, t(labelKey)),
      SEATS.map((s) => h('label', {}, h('input', {
        type: 'checkbox', checked: this.pos[key].has(s), 'data-testid': `editor-${key}-${s}`,
        onchange: (e) => { if (e.target.checked) this.pos[key].add(s); else this.pos[key].delete(s); this.onChange(); },
      }), t(`seat.${s}`))));

    this.element.replaceChildren(
      h('h2', {}, t('editor.title')),
      h('p', { class: 'hint' }, t('editor.help')),
      h('div', { class: 'row' },
        h('label', { for: 'editor-owner' }, t('editor.owner')), ownerSelect,
        h('label', {}, promotedBox, t('editor.promoted'))),
      h('div', { class: 'palette', role: 'group', 'aria-label': t('editor.palette') },
        KINDS.map(pieceButton),
        h('button', {
          type: 'button', 'data-testid': 'tool-erase', 'aria-pressed': String(tool.erase),
          onclick: () => this.setTool({ erase: true }),
        }, t('editor.erase'))),
      h('div', { class: 'row' },
        h('label', { for: 'editor-to-move' }, t('editor.toMove')), toMove,
        h('label', { for: 'editor-alliance' }, t('editor.alliance')), alliance),
      flagBoxes('active', 'editor.active'),
      flagBoxes('castling', 'editor.castling'),
      handGrid);
  }
}
