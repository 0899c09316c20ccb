// The account page's return address (static/js/next.js), in node (no browser): only
// paths of the site itself pass, whatever a link to `/account?next=…` spells.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { safeNext } = await import('../../static/js/next.js');

const ORIGIN = 'https://sannin.example';

test('paths of the site pass, with their query and fragment', () => {
  assert.equal(safeNext('/', ORIGIN), '/');
  assert.equal(safeNext('/rooms/abc', ORIGIN), '/rooms/abc');
  assert.equal(safeNext('/players/alice?x=1#games', ORIGIN), '/players/alice?x=1#games');
  assert.equal(safeNext('/a/../leaderboard', ORIGIN), '/leaderboard');
});

test('other sites, however spelled, go to the home page', () => {
  const attacks = [
    '//evil.example/',
    '/\\evil.example/',
    '\\/evil.example/',
    '/\t/evil.example/',
    '/\n/evil.example/',
    '/\r/evil.example/',
    '/\r\n/evil.example/',
    '/%09/evil.example/',
    '\t//evil.example/',
    ' //evil.example/',
    '/ /evil.example/',
    'https://evil.example/',
    'HTTPS://evil.example/',
    'javascript:alert(1)',
    'java\tscript:alert(1)',
    'evil.example',
    '',
    null,
    undefined,
  ];
  for (const next of attacks) {
    const to = safeNext(next, ORIGIN);
    const url = new URL(to, ORIGIN);
    assert.equal(url.origin, ORIGIN, `${JSON.stringify(next)} went to ${to}`);
    assert.ok(!to.startsWith('//'), `${JSON.stringify(next)} went to ${to}`);
  }
  // Each tab, line-break and backslash variant is refused outright.
  for (const next of ['/\t/evil.example/', '/\n/evil.example/', '/\r/evil.example/', '/\\evil.example/']) {
    assert.equal(safeNext(next, ORIGIN), '/', JSON.stringify(next));
  }
});

test('the old check let a tab through to another site', () => {
  // What the page checked before: a leading '/' not followed by '/' or '\'.
  const old = (next) => (/^\/(?![/\\])/.test(next) ? next : '/');
  const passed = old('/\t/evil.example/');
  // A browser drops the tab: the address is another site's.
  assert.equal(new URL(passed.replace(/[\t\n\r]/g, ''), ORIGIN).host, 'evil.example');
  assert.equal(safeNext('/\t/evil.example/', ORIGIN), '/');
});
