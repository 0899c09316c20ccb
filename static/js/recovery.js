// Account recovery on the account page (docs/accounts.md, "E-mail and a forgotten
// password"): the account's e-mail address and its confirmation, "Forgot your
// password?" under the log-in form, and the pages the mailed links open —
// `/account/verify?token=…` (the address confirmed) and `/account/reset?token=…` (a new
// password).
import { accountErrorText } from './account.js';
import { h } from './dom.js';
import { onLangChange, t } from './i18n.js';
import { api } from './protocol.js';

const post = (path, body) => api(path, { method: 'POST', body: JSON.stringify(body) });

/** A form with one status line: `send(values)` resolves to the status to show. */
function form({ testid, title, intro, fields, button, send }) {
  const inputs = fields.map((f) => h('input', {
    id: `${testid}-${f.name}`, 'data-testid': `${testid}-${f.name}`, required: true, ...f.attrs,
  }));
  const status = h('p', { role: 'status', 'data-testid': `${testid}-status` });
  const submit = h('button', { type: 'submit', 'data-testid': `${testid}-submit` }, button);
  async function onsubmit(e) {
    e.preventDefault();
    submit.disabled = true;
    status.textContent = '';
    try {
      status.textContent = await send(Object.fromEntries(fields.map((f, i) => [f.name, inputs[i].value.trim()])));
    } catch (err) {
      status.textContent = accountErrorText(err);
    } finally {
      submit.disabled = false;
    }
  }
  return h('form', { class: 'panel account-form', onsubmit, 'data-testid': `${testid}-form` },
    h('h2', {}, title), intro ? h('p', { class: 'hint' }, intro) : null,
    ...fields.flatMap((f, i) => [h('label', { for: inputs[i].id }, f.label), inputs[i]]),
    submit, status);
}

/** The logged-in account's address: shown, set, and confirmed by a mailed link. */
export function emailPanel() {
  const shown = h('p', { 'data-testid': 'email-now' });
  const show = (e) => {
    shown.textContent = !e.email ? t('account.email.none')
      : t(e.verified ? 'account.email.verified' : 'account.email.unverified', { email: e.email });
  };
  api('/api/account/email').then(show, () => {});
  const panel = form({
    testid: 'email',
    title: t('account.email.title'),
    intro: t('account.email.intro'),
    fields: [
      { name: 'email', label: t('account.email.label'), attrs: { type: 'email', autocomplete: 'email', maxlength: 254 } },
      // The account's password too: a session alone does not move its recovery mail.
      { name: 'password', label: t('account.email.password'), attrs: { type: 'password', autocomplete: 'current-password', maxlength: 1024 } },
    ],
    button: t('account.email.button'),
    send: async ({ email, password }) => {
      show(await post('/api/account/email', { email, password }));
      return t('account.email.sent', { email });
    },
  });
  panel.insertBefore(shown, panel.children[2]);
  return panel;
}

/** "Forgot your password?": a link mailed to the account's confirmed address. */
export function forgotPanel() {
  const inner = form({
    testid: 'forgot',
    title: t('account.forgot.title'),
    intro: t('account.forgot.intro'),
    fields: [{ name: 'name', label: t('account.forgot.label'), attrs: { autocomplete: 'username', maxlength: 254 } }],
    button: t('account.forgot.button'),
    send: async ({ name }) => {
      await post('/api/password/forgot', { name });
      return t('account.forgot.sent');
    },
  });
  return h('details', { class: 'forgot', 'data-testid': 'forgot' },
    h('summary', {}, t('account.forgot.summary')), inner);
}

/** The page a mailed link opens: `/account/verify` or `/account/reset`. */
export function showLink(app) {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const kind = location.pathname.includes('reset') ? 'reset' : 'verify';
  let done = null; // the outcome of a verification, once known
  function render() {
    document.title = t('account.pageTitle');
    const back = h('p', {}, h('a', { href: '/account', 'data-testid': 'to-account' }, t('account.link.toAccount')));
    if (kind === 'verify') {
      app.replaceChildren(h('div', { class: 'account-page' },
        h('section', { class: 'panel' }, h('h1', {}, t('account.email.title')),
          h('p', { role: 'status', 'data-testid': 'verify-status' }, done ?? t('account.link.checking')), back)));
      return;
    }
    app.replaceChildren(h('div', { class: 'account-page' }, form({
      testid: 'reset',
      title: t('account.reset.title'),
      fields: [{ name: 'password', label: t('account.password.new'), attrs: { type: 'password', minlength: 8, maxlength: 256, autocomplete: 'new-password' } }],
      button: t('account.reset.button'),
      send: async ({ password }) => {
        await post('/api/password/reset', { token, new: password });
        return t('account.reset.done');
      },
    }), back));
  }
  if (kind === 'verify') {
    post('/api/account/email/verify', { token }).then(
      (e) => { done = t('account.email.verified', { email: e.email }); },
      (err) => { done = accountErrorText(err); },
    ).then(render);
  }
  render();
  onLangChange(render);
}
