// The lobby, live: `GET /api/lobby/events` (server-sent events) sends the open tables,
// the games under way and the pools' waiting counts at once and again at each change.
// Where the stream cannot be had (an older server, a proxy that refuses it), the lobby
// asks `GET /api/rooms` every few seconds instead, without a word, and tries the stream
// again now and then.

const POLL_MS = 5000;
const RETRY_STREAM_MS = 30000;

/**
 * Starts following the lobby: `onPicture({ waiting, playing, pools })` for each picture
 * of the stream; `onPoll()` when the lists should be fetched the old way (at once when
 * the stream fails, then every few seconds while the page is seen). Returns `stop()`.
 */
export function followLobby({ onPicture, onPoll }) {
  let source = null;
  let pollTimer = null;
  let retryTimer = null;
  let stopped = false;

  function stopPolling() {
    clearInterval(pollTimer);
    pollTimer = null;
  }

  function poll() {
    if (pollTimer || stopped) return;
    onPoll();
    pollTimer = setInterval(() => { if (!document.hidden) onPoll(); }, POLL_MS);
  }

  function open() {
    if (stopped) return;
    if (typeof EventSource !== 'function') {
      poll();
      return;
    }
    const es = new EventSource('/api/lobby/events');
    source = es;
    es.addEventListener('lobby', (e) => {
      let picture;
      try { picture = JSON.parse(e.data); } catch { return; }
      if (!picture || typeof picture !== 'object') return;
      stopPolling();
      onPicture(picture);
    });
    es.addEventListener('error', () => {
      // CONNECTING: the browser reconnects by itself (a server restarting). CLOSED: the
      // stream was refused (not found, too many connections): poll, and try again later.
      if (es.readyState !== EventSource.CLOSED || source !== es) return;
      source = null;
      poll();
      clearTimeout(retryTimer);
      retryTimer = setTimeout(open, RETRY_STREAM_MS);
    });
  }

  open();
  const stop = () => {
    stopped = true;
    source?.close();
    source = null;
    stopPolling();
    clearTimeout(retryTimer);
  };
  addEventListener('pagehide', stop);
  // Back to a page kept in the browser's cache: follow again.
  addEventListener('pageshow', (e) => {
    if (!e.persisted) return;
    stopped = false;
    open();
  });
  return stop;
}
