// Where the client's other files are: beside the modules, under the same versioned
// path (`/v/<hash>/`, cached for good) when the page was loaded from one. This module
// stays directly in js/ (the build's chunks too), so `..` from it is the client's root.
const ROOT = new URL('../', import.meta.url);

/** The address of the client's file `path` (`sounds/turn.wav`). */
export function clientFile(path) {
  return new URL(path, ROOT).href;
}

/** Adds the stylesheet `path` (`fonts/people/people.css`) to the page, without holding
 * the page's first drawing for it. */
export function addStylesheet(path) {
  const href = clientFile(path);
  if ([...document.querySelectorAll('link[rel="stylesheet"]')].some((l) => l.href === href)) return;
  document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href }));
}
