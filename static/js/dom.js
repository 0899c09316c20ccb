// Tiny DOM helper. Strings become text nodes: user text is never parsed as HTML.
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (v === true) node.setAttribute(k, '');
    else node.setAttribute(k, String(v));
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c)));
  return node;
}

/** A 24×24 icon drawn by one SVG path `d` (no font needed), hidden from screen readers. */
export function iconSvg(className, d) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', className);
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(NS, 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}

const presses = new WeakMap();

/** Calls `draw`, which replaces buttons inside `node` — now, or, while a pointer is
 * pressed inside `node`, once it is released. A click is a press and a release on the
 * same element: had the button been replaced in between (another player's move, a
 * readiness change), the click would be lost. */
export function redraw(node, draw) {
  let press = presses.get(node);
  if (!press) {
    press = { down: false, pending: null };
    presses.set(node, press);
    node.addEventListener('pointerdown', () => {
      press.down = true;
      const release = () => {
        document.removeEventListener('pointerup', release, true);
        document.removeEventListener('pointercancel', release, true);
        // After the click that the release makes has been dispatched.
        setTimeout(() => {
          press.down = false;
          const pending = press.pending;
          press.pending = null;
          pending?.();
        });
      };
      document.addEventListener('pointerup', release, true);
      document.addEventListener('pointercancel', release, true);
    });
  }
  if (press.down) press.pending = draw;
  else draw();
}
