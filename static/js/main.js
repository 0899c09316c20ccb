// Entry point: "/" is the lobby, "/learn" the tutorial, "/rules" the rules, "/analysis" the analysis board,
// "/rooms/{id}" a room (the link players share), "/games" the reader's games, "/tv" the
// best game being played, watched; any other address the page of an unknown one
// (missing.js, answered 404 by the server);
// "/account", "/players/{name}" and "/leaderboard" the pages of accounts, "/mod" the
// moderators'. The header is the same on every page.
import { mountHeader, pageOf } from './site.js';
import { addStylesheet } from './files.js';

const app = document.getElementById('app');
const page = pageOf(location.pathname);
mountHeader(page);
// A quick game being looked for goes on on every page (the lobby shows it in full).
if (page !== 'lobby' && hasWaitingTicket()) import('./waitbar.js').then((m) => m.mountWaitBar(page));
if (page === 'room') {
  const { showRoom } = await import('./room.js');
  showRoom(app, segmentOf(location.pathname, 'rooms'));
} else if (page === 'games') {
  (await import('./games.js')).showGames(app);
} else if (page === 'learn') {
  (await import('./learn.js')).showLearn(app);
} else if (page === 'rules') {
  (await import('./rules.js')).showRules(app);
} else if (page === 'analysis') {
  (await import('./analysis.js')).showAnalysis(app);
} else if (page === 'account') {
  (await import('./players-pages.js')).showAccount(app);
} else if (page === 'leaderboard') {
  (await import('./players-pages.js')).showLeaderboard(app);
} else if (page === 'mod') {
  (await import('./mod.js')).showMod(app);
} else if (page === 'tv') {
  (await import('./tv.js')).showTv(app);
} else if (page === 'player') {
  (await import('./players-pages.js')).showProfile(app, segmentOf(location.pathname, 'players'));
} else if (page === 'missing') {
  (await import('./missing.js')).showMissing(app);
} else {
  (await import('./lobby.js')).showLobby(app);
}
// The fonts of people's own text (names, chat in CJK scripts): their stylesheet alone
// is 40 kB, so it comes once the page is there, not before its first drawing.
addStylesheet('fonts/people/people.css');

function hasWaitingTicket() {
  try { return Boolean(localStorage.getItem('sannin.pairing')); } catch { return false; }
}

/** The room id of a `/rooms/{id}` path (the name of `/players/{name}`). A link mangled
 * on the way (`/rooms/%E0%A4%A`, not valid percent-encoding) is taken as it is: the
 * page then says there is no such room instead of failing to load. */
function segmentOf(pathname, prefix) {
  const raw = new RegExp(`^/${prefix}/([^/]*)`).exec(pathname)?.[1] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
