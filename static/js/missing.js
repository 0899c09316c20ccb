// The page of an address the site does not have (the server answers it with 404 and
// this page): it says so, in the site's look, with the way home.
import { h } from './dom.js';
import { onLangChange, t } from './i18n.js';

export function showMissing(app) {
  function render() {
    document.title = t('missing.pageTitle');
    app.replaceChildren(h('article', { class: 'missing-page', 'data-testid': 'missing' },
      h('h1', {}, t('missing.title')),
      h('p', {}, t('missing.text', { path: location.pathname })),
      h('p', {}, h('a', { href: '/', class: 'button primary', 'data-testid': 'missing-home' }, t('missing.home')))));
  }
  render();
  onLangChange(render);
}
