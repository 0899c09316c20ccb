// Sounds of the room (small WAV files under /sounds/, off with the `sound` preference).
// The notification when the turn comes while the page is in the background is
// notify.js's.
import { getPref } from '../prefs.js';
import { SOUND_ORDER } from './model.js';

const FILES = Object.fromEntries(SOUND_ORDER.map((name) => [name, `/sounds/${name}.wav`]));

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
    try {
      let a = this.audio.get(name);
      if (!a) {
        a = new Audio(FILES[name]);
        a.volume = 0.6;
        this.audio.set(name, a);
      }
      a.currentTime = 0;
      a.play()?.catch(() => { /* autoplay blocked until the reader interacts */ });
    } catch { /* no audio */ }
  }
}
