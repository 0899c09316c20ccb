// The analysis board's requests: `POST /api/replay` (a record played out: its plies and
// the legal actions after the last), `GET /api/rooms/{id}/history`, `POST /api/analyse`
// and a finished game's computer review (`GET`/`POST /api/rooms/{id}/review`). A
// refusal rejects with an Error carrying the server's `code`, the HTTP `status`,
// `retryAfter` (seconds, from `Retry-After`) and, for a record, the `ply` and `token`
// that failed.

import { httpError } from '../i18n.js';

async function call(url, init) {
  const res = await fetch(url, init);
  let body = null;
  try { body = await res.json(); } catch { body = null; }
  if (!res.ok) {
    const err = httpError(res, body);
    err.retryAfter = Number(res.headers.get('retry-after')) || null;
    err.ply = body?.ply ?? null;
    err.token = body?.token ?? null;
    throw err;
  }
  return body;
}

const post = (body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** POST /api/replay → { start, plies, legal }. */
export function replay(record, position) {
  return call('/api/replay', post(position ? { record, position } : { record }));
}

/** GET /api/rooms/{id}/history → { start, plies, legal }. */
export function roomHistory(id) {
  return call(`/api/rooms/${encodeURIComponent(id)}/history`);
}

/** POST /api/analyse → the analysis object (docs/protocol.md). */
export function analysePosition(body) {
  return call('/api/analyse', post(body));
}

/** GET /api/rooms/{id}/review → the computer review of a finished game (its state,
 * progress and, once done, each position and move judged); 404 `review_not_found`
 * until somebody asks for it. */
export function roomReview(id) {
  return call(`/api/rooms/${encodeURIComponent(id)}/review`);
}

/** POST /api/rooms/{id}/review → the review asked for (or as it stands). */
export function requestReview(id) {
  return call(`/api/rooms/${encodeURIComponent(id)}/review`, post({}));
}
