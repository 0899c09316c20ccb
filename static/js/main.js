// Entry point: "/" is the lobby, "/rules" the rules, "/analysis" the analysis board,
// "/rooms/{id}" a room (the link players share). The header is the same on every page.
import { mountHeader, pageOf } from './site.js';

const app = document.getElementById('app');
const page = pageOf(location.pathname);
mountHeader(page);
if (page === 'room') {
  const { showRoom } = await import('./room.js');
  showRoom(app, roomIdOf(location.pathname));
} else if (page === 'rules') {
  (await import('./rules.js')).showRules(app);
} else if (page === 'analysis') {
  (await import('./analysis.js')).showAnalysis(app);
} else {
  (await import('./lobby.js')).showLobby(app);
}

/** The room id of a `/rooms/{id}` path. A link mangled on the way (`/rooms/%E0%A4%A`,
 * not valid percent-encoding) is taken as it is: the room page then says there is no
 * such room instead of the page failing to load. */
function roomIdOf(pathname) {
  const raw = /^\/rooms\/([^/]*)/.exec(pathname)?.[1] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
