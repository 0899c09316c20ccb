// Where the account page sends the reader back after logging in: the `next` of
// `/account?next=…`, only when it names a page of this site. Browsers drop tabs and
// line breaks from URLs and read `\` as `/`, so `/\t/evil.example` would become
// `//evil.example`: such text is refused outright, and what is left is compared by
// its parsed origin, never by its spelling.

/**
 * The path (with query and fragment) to go to after logging in: `next` when it is a
 * path of `origin`'s site, else `/`.
 * @param {string | null | undefined} next
 * @param {string} origin the page's origin, `location.origin`
 * @returns {string}
 */
export function safeNext(next, origin) {
  if (typeof next !== 'string' || next === '') return '/';
  // A single leading '/', then no second '/' or '\' (no scheme-relative URL).
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  // No control characters, spaces or backslashes anywhere (the parser would drop or
  // turn them into something else).
  if (/[\u0000-\u0020\u007f\\]/.test(next)) return '/';
  let url;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  if (url.origin !== new URL(origin).origin) return '/';
  const path = url.pathname + url.search + url.hash;
  return path.startsWith('/') && !path.startsWith('//') ? path : '/';
}
