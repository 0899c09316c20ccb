// Entry point: "/" is the lobby, "/rules" the rules, "/analysis" the analysis board,
// "/rooms/{id}" a room (the link players share). The header is the same on every page.
import { mountHeader, pageOf } from './site.js';

const app = document.getElementById('app');
const page = pageOf(location.pathname);
mountHeader(page);
if (page === 'room') {
  const { showRoom } = await import('./room.js');
  showRoom(app, decodeURIComponent(/^\/rooms\/([^/]+)/.exec(location.pathname)[1]));
} else if (page === 'rules') {
  (await import('./rules.js')).showRules(app);
} else if (page === 'analysis') {
  (await import('./analysis.js')).showAnalysis(app);
} else {
  (await import('./lobby.js')).showLobby(app);
}
