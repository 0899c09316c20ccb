// Sounds of the room (small WAV files under /sounds/, off with the `sound` preference).
// The notification when the turn comes while the page is in the background is
// notify.js's.
import { getPref } from '../prefs.js';
import { SOUND_ORDER } from './model.js';
import { clientFile } from '../files.js';

// Relative to the client's files (under the page's /v/<hash>/: cached for good).
const FILES = Object.fromEntries(SOUND_ORDER.map((name) => [name, clientFile(`sounds/${name}.wav`)]));

export class Sounds {
  constructor() {
    this.audio = new Map();
    this.queued = new Set();
    this.timer = null;
    /** Names played so far, most recent last (the page's tests read it). */
    this.played = [];
  }

  get on() {
    try { return getPref('sound') !== false; } catch { return true; }
  }

  /** Asks for sounds; those asked within a few milliseconds (one action and its events)
   * make one sound, the most important of them. */
  play(names) {
    for (const n of names) if (FILES[n]) this.queued.add(n);
    if (!this.queued.size || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const best = SOUND_ORDER.find((n) => this.queued.has(n));
      this.queued.clear();
      if (best) this.now(best);
    }, 40);
  }

  now(name) {
    this.played.push(name);
    if (this.played.length > 50) this.played.shift();
    document.documentElement.dataset.lastSound = name;
    if (!this.on) return;
    this.load(name).then((a) => {
      if (!a) return;
      a.currentTime = 0;
      a.play()?.catch(() => { /* autoplay blocked until the reader interacts */ });
    });
  }

  /** The sound `name`, fetched the first time it plays, by `fetch`: the file then comes
   * from the HTTP cache on the next visit (an `<audio>`'s range requests would go to
   * the network again). */
  load(name) {
    if (!this.audio.has(name)) {
      const a = fetch(FILES[name])
        .then((res) => (res.ok ? res.blob() : null))
        .then((blob) => {
          if (!blob) return null;
          const audio = new Audio(URL.createObjectURL(blob));
          audio.volume = 0.6;
          return audio;
        })
        .catch(() => null); // no audio
      this.audio.set(name, a);
    }
    return this.audio.get(name);
  }
}
