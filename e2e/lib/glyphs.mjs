// Whether a page draws its Japanese, Chinese and Korean text as glyphs or as boxes, in a
// browser with no CJK font of its own (lib/nocjk.mjs): what the bundled fonts hold, a
// character they lack (a control drawn as a box), and the measure itself, run in the page.
import { readFileSync } from 'node:fs';
import { STATIC } from './mock.mjs';

/** The characters of an interface font (static/fonts/sannin-<code>.chars.txt). */
export const fontChars = (code) => new Set([...readFileSync(`${STATIC}fonts/sannin-${code}.chars.txt`, 'utf8').trim()]);

/** The characters of the people's-text slices: every unicode-range of
 * static/fonts/people/people.css. */
export function peopleChars() {
  const css = readFileSync(`${STATIC}fonts/people/people.css`, 'utf8');
  const out = new Set();
  for (const [, list] of css.matchAll(/unicode-range:([^;]+);/g)) {
    for (const part of list.split(',')) {
      const [a, b = a] = part.trim().replace(/^U\+/i, '').split('-');
      for (let c = parseInt(a, 16); c <= parseInt(b, 16); c++) out.add(String.fromCodePoint(c));
    }
  }
  return out;
}

/** The first character from code point `from` on that none of `held` is. */
export function lacking(from, held) {
  let c = from;
  while (held.has(String.fromCodePoint(c))) c += 1;
  return String.fromCodePoint(c);
}

/** In the page: every distinct CJK character of the visible text and of the language
 * switch's options, drawn on a canvas at 100 px in the font family and weight of the
 * element that shows it, compared with `lacking`, a character that no bundled font
 * holds, drawn the same way: a missing glyph is drawn as the same box (.notdef) as
 * `lacking`, a real glyph is not. Returns the characters drawn as boxes (or not at all),
 * with their element's font; and the characters of the page whose width as laid out
 * differs from their width in that font (text laid out with a fallback font and never
 * again once the web font came). */
export async function measure(lacking) {
  const cjk = /[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff\uff01-\uff5e]/u;
  const seen = new Map();
  const placed = [];
  const add = (text, el, node = null) => {
    const cs = getComputedStyle(el);
    const font = { family: cs.fontFamily, weight: cs.fontWeight, style: cs.fontStyle, size: parseFloat(cs.fontSize) };
    [...text].forEach((c, i) => {
      if (!cjk.test(c)) return;
      const key = `${c}|${font.family}|${font.weight}|${font.style}`;
      if (!seen.has(key)) seen.set(key, [c, font]);
      if (node && cs.letterSpacing === 'normal') placed.push([node, i, c, font]);
    });
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (el && el.getClientRects().length > 0 && !el.closest('[hidden]') && !/[\ud800-\udfff]/.test(n.data)) add(n.data, el, n);
  }
  const options = [...document.querySelectorAll('[data-testid="lang"] option')];
  for (const o of options) add(o.textContent, o);
  // A canvas draws with the web fonts already loaded only: show every character in its
  // font first (the closed switch's options are not drawn, so their fonts may be
  // unloaded), then wait for the fonts.
  const holder = document.createElement('div');
  holder.style.cssText = 'position: absolute; top: 0; left: 0; opacity: 0';
  for (const [c, f] of seen.values()) {
    const span = document.createElement('span');
    Object.assign(span.style, { fontFamily: f.family, fontWeight: f.weight, fontStyle: f.style });
    span.textContent = c + lacking;
    holder.append(span);
  }
  document.body.append(holder);
  await document.fonts.ready;
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  holder.remove();
  const canvas = document.createElement('canvas');
  canvas.width = 130;
  canvas.height = 130;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const ink = (ch, f) => {
    ctx.clearRect(0, 0, 130, 130);
    ctx.font = `${f.style} ${f.weight} 100px ${f.family}`;
    ctx.fillText(ch, 10, 105);
    const a = ctx.getImageData(0, 0, 130, 130).data;
    let sum = 0;
    for (let i = 3; i < a.length; i += 4) sum = (sum * 31 + a[i] * (i + 1)) % 2147483647;
    return sum;
  };
  const boxes = [...seen.values()]
    .filter(([c, f]) => { const mine = ink(c, f); return mine === 0 || mine === ink(lacking, f); })
    .map(([c, f]) => [c, f.weight, f.family.slice(0, 40)]);
  const range = document.createRange();
  const misdrawn = [];
  for (const [node, i, c, f] of placed) {
    if (!node.isConnected) continue; // re-rendered (the live lists) meanwhile
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const laid = range.getBoundingClientRect().width;
    ctx.font = `${f.style} ${f.weight} ${f.size}px ${f.family}`;
    const wanted = ctx.measureText(c).width;
    if (Math.abs(laid - wanted) > 0.15 * f.size) misdrawn.push([c, Math.round(laid * 10) / 10, Math.round(wanted * 10) / 10, f.weight, node.parentElement.dataset.testid ?? node.parentElement.tagName]);
  }
  return { count: new Set([...seen.values()].map(([c]) => c)).size, options: options.map((o) => o.textContent).join(''), boxes, misdrawn: misdrawn.slice(0, 20) };
}
