// The bell in the header: a small panel that turns notifications on and off and picks
// their kinds (notify.js keeps the setting, the subscription and what went wrong).
import { h, iconSvg } from './dom.js';
import { t } from './i18n.js';
import { KINDS, notifyStatus, onNotifyChange, setKind, turnOff, turnOn } from './notify.js';

function bellIcon() {
  return iconSvg('bell-icon', 'M12 2.5a1.5 1.5 0 0 1 1.5 1.5v.6A6.5 6.5 0 0 1 18.5 11v3.6l1.8 2.6a.8.8 0 0 1-.7 1.3H4.4a.8.8 0 0 1-.7-1.3l1.8-2.6V11a6.5 6.5 0 0 1 5-6.4V4A1.5 1.5 0 0 1 12 2.5ZM9.5 20h5a2.5 2.5 0 0 1-5 0Z');
}

/** The bell button and its panel: `{ el, relabel() }`. */
export function bellButton() {
  const button = h('button', {
    type: 'button', class: 'bell', 'data-testid': 'bell', 'aria-expanded': 'false', 'aria-controls': 'bell-panel',
  }, bellIcon(), h('span', { class: 'bell-dot', 'aria-hidden': 'true' }));
  const panel = h('div', {
    id: 'bell-panel', class: 'bell-panel', role: 'region', 'aria-labelledby': 'bell-title', 'data-testid': 'bell-panel', hidden: true,
  });
  const el = h('div', { class: 'bell-wrap' }, button, panel);

  function open(on) {
    panel.hidden = !on;
    button.setAttribute('aria-expanded', String(on));
    if (on) {
      draw();
      panel.querySelector('input')?.focus();
    }
  }
  button.addEventListener('click', () => open(panel.hidden));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !panel.hidden) {
      open(false);
      button.focus();
    }
  });
  document.addEventListener('pointerdown', (e) => { if (!panel.hidden && !el.contains(e.target)) open(false); });

  function draw() {
    const st = notifyStatus();
    button.classList.toggle('on', st.on);
    const label = t(st.on ? 'notify.bellOn' : 'notify.bellOff');
    button.setAttribute('aria-label', label);
    button.title = label;
    if (panel.hidden) return;
    const master = h('input', {
      type: 'checkbox', 'data-testid': 'notify-on', checked: st.on, disabled: st.busy,
      onchange: (e) => (e.target.checked ? turnOn() : turnOff()),
    });
    let state = null;
    if (st.busy) state = t('notify.busy');
    else if (st.on && st.push === 'on') state = t('notify.state.push');
    else if (st.on) state = t('notify.state.page');
    panel.replaceChildren(...[
      h('h2', { id: 'bell-title' }, t('notify.title')),
      h('p', { class: 'hint' }, t('notify.intro')),
      h('label', { class: 'toggle master' }, master, t('notify.on')),
      state ? h('p', { class: 'notify-state', 'data-testid': 'notify-state' }, state) : null,
      st.problem ? h('p', { class: 'notify-problem', role: 'alert', 'data-testid': 'notify-problem' }, t(st.problem)) : null,
      // Chosen ahead while off, shown dimmed: nothing is sent until it is on.
      h('fieldset', { class: st.on ? 'kinds' : 'kinds off' },
        h('legend', {}, t('notify.kinds')),
        KINDS.map((kind) => h('label', { class: 'toggle' },
          h('input', {
            type: 'checkbox', 'data-testid': `notify-kind-${kind}`, checked: st.kinds.includes(kind),
            onchange: (e) => setKind(kind, e.target.checked),
          }),
          t(`notify.kind.${kind}`)))),
    ].filter(Boolean));
  }
  onNotifyChange(() => {
    // Keep focus on the control that was used.
    const focused = document.activeElement?.dataset?.testid;
    draw();
    if (focused && panel.contains(document.activeElement) === false) panel.querySelector(`[data-testid="${focused}"]`)?.focus();
  });
  return { el, relabel: draw };
}
