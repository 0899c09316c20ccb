// What the site tests (lobby, rules, analysis board, accessibility) share: a person in a
// browser without CJK fonts whose WebSocket frames are recorded, the check that no
// English is left on a page in another language, and axe-core.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { personIn } from './people.mjs';

export { until } from './people.mjs';

const require = createRequire(import.meta.url);
export const SHOTS = '/tmp/shots-site/';

export const DESKTOP = { width: 1366, height: 768 };
export const PHONE = { width: 390, height: 844 };

/** The browser locale that asks for each language of the client. */
export const BROWSER_LOCALES = { en: 'en-GB', ja: 'ja-JP', ru: 'ru-RU', zh: 'zh-CN', ko: 'ko-KR' };

/** A context of its own (own storage) with its room WebSocket frames recorded. */
export async function visitor(browser, label, { viewport = DESKTOP, lang = 'en', prefs = null } = {}) {
  // Reduced motion: no colour transitions half way through in the screenshots.
  const context = await browser.newContext({ viewport, locale: BROWSER_LOCALES[lang] ?? lang, reducedMotion: 'reduce' });
  const v = await personIn(context, label);
  if (prefs) await v.page.addInitScript((p) => localStorage.setItem('sannin.prefs', p), JSON.stringify(prefs));
  return v;
}

/** Chooses language `code` in the header's switch, and waits until the page shows it
 * (the language's table loads when chosen: i18n.js). */
export async function chooseLang(page, code) {
  const tags = { en: 'en', ja: 'ja', ru: 'ru', zh: 'zh-Hans', ko: 'ko' };
  await page.getByTestId('lang').selectOption(code);
  await page.waitForFunction((tag) => document.documentElement.lang === tag, tags[code] ?? code);
}

/**
 * English texts still visible on a page shown in another language (`code`, Japanese
 * unless told): every message whose English and translated texts differ is looked for
 * (its literal parts of 4 letters or more) in the visible text, placeholders, titles and
 * accessible names of the page. `except` lists texts that are data, not messages
 * (player names…).
 */
export async function englishLeft(page, except = [], code = 'ja') {
  return page.evaluate(async ([exceptions, lang]) => {
    const { messagesOf } = await import('/js/i18n.js');
    const [en, ja] = await Promise.all([messagesOf('en'), messagesOf(lang)]);
    let text = document.body.innerText;
    for (const el of document.querySelectorAll('[placeholder], [title], [aria-label]')) {
      if (el.closest('[hidden]') || el.getClientRects().length === 0) continue;
      text += `\n${el.getAttribute('placeholder') ?? ''}\n${el.getAttribute('title') ?? ''}\n${el.getAttribute('aria-label') ?? ''}`;
    }
    for (const e of exceptions) text = text.split(e).join(' ');
    const found = [];
    for (const [key, value] of Object.entries(en)) {
      if (ja[key] === value) continue;
      for (const part of (typeof value === 'string' ? [value] : Object.values(value)).join('\n').split(/\{\w+\}|\n/)) {
        const p = part.trim();
        if (/[A-Za-z]{4}/.test(p) && text.includes(p)) found.push(`${key}: "${p}"`);
      }
    }
    // And any English word at all (3+ Latin letters) left in the visible text.
    const words = (document.body.innerText.match(/[A-Za-z]{3,}/g) ?? [])
      .filter((w) => !exceptions.some((e) => e.includes(w)));
    return { messages: found, words: [...new Set(words)] };
  }, [except, code]);
}

/** Runs axe-core (WCAG 2.x A and AA rules) on the page; returns its violations. */
export async function axe(page, { exclude = [] } = {}) {
  const source = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated by the test driver, not added as an inline <script>: the site's Content
  // Security Policy (no inline script) refuses the latter, as it should.
  await page.evaluate(source);
  return page.evaluate(async (ex) => {
    const res = await window.axe.run({ exclude: ex.map((s) => [s]) }, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return res.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')} :: ${n.failureSummary?.split('\n').slice(0, 3).join(' ')}`),
    }));
  }, exclude);
}

/** A screenshot once the page's web fonts have loaded. */
export async function shot(page, options) {
  await page.evaluate(() => document.fonts.ready.then(() => true));
  return page.screenshot(options);
}
