// Small things the lobby and the room share: remembered name, join intent, room ids.

export const JOIN_INTENT_KEY = 'sannin.join';
const NAME_KEY = 'sannin.name';

export function storedName() {
  try { return localStorage.getItem(NAME_KEY) ?? ''; } catch { return ''; }
}
export function storeName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch { /* ignore */ }
}

/** Room ids are UUIDs: their first block is enough to tell rooms apart by eye. */
export function shortId(id) {
  return id.length > 12 ? id.slice(0, 8) : id;
}
