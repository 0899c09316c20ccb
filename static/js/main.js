// Entry point: "/" is the lobby, "/rooms/{id}" a room (the link players share).
import { showLobby } from './lobby.js';
import { showRoom } from './room.js';

const app = document.getElementById('app');
const m = /^\/rooms\/([^/]+)\/?$/.exec(location.pathname);
if (m) showRoom(app, decodeURIComponent(m[1]));
else showLobby(app);
