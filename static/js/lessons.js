// The lessons of /learn: short texts and positions where the learner, playing Middle,
// must find the move asked for. Pure data and a position writer (RULES §13.3): no DOM,
// so node can read it too. Each exercise's position is checked by the server when the
// page plays a move from it (`POST /api/replay`); `goal` says which legal move is the
// right one: `actions` (canonical texts), or an event the move must cause (`check`,
// `mated`, `alliance_formed`, `illuminated`, `garden` for a win on 7g), or `drop` (any
// drop of that piece). An exercise with a `prelude` starts with that action of the
// player before Middle (First), played by the server too: the double attack needs it.
import { CELLS } from './geometry.js';

/** The kings every position has, far from the play: First on 1a, Last on 13g, Middle
 * on 10m (each on its own home edge). */
const KINGS = { '1a': 'fK', '13g': 'lK', '10m': 'mK' };

const LETTER = { K: 'K', R: 'R', B: 'B', G: 'G', S: 'S', N: 'N', L: 'L', P: 'P' };

/**
 * Writes a position string: `pieces` maps cells to pieces as §13.3 writes them
 * (`mS`, `f+R`); `toMove` is to move (Middle unless told); `hand` is Middle's hand
 * (`GP`); no castling.
 */
export function lessonPosition(pieces, { hand = '-', kings = KINGS, toMove = 'M' } = {}) {
  const all = { ...kings, ...pieces };
  const ranks = [];
  let rank = -1;
  let text = '';
  let empty = 0;
  const flush = () => { if (empty) { text += String(empty); empty = 0; } };
  for (const { r, name } of CELLS) {
    if (r !== rank) {
      if (rank >= 0) { flush(); ranks.push(text); }
      rank = r;
      text = '';
    }
    const p = all[name];
    if (!p) { empty += 1; continue; }
    flush();
    if (!LETTER[p.at(-1)]) throw new Error(`bad piece ${p}`);
    text += p;
  }
  flush();
  ranks.push(text);
  return `${ranks.join('/')} ${toMove} -/${hand}/- FML - -`;
}

/**
 * The lessons, in order. `id` names the lesson (its link is `/learn#id`); its title and
 * text are `learn.<id>.title` and `learn.<id>.text`; each exercise's task is
 * `learn.<id>.<n>` (n from 1) and, for a legal move that is not the one asked for,
 * `learn.<id>.<n>.hint`. `mark`: cells outlined as the task's targets.
 */
export const LESSONS = [
  {
    id: 'king', pieces: ['K', 'G'],
    exercises: [
      { position: lessonPosition({ '9j': 'mK', '9i': 'fP', '8k': 'lP' }, { kings: { '1a': 'fK', '13g': 'lK' } }), goal: { actions: ['K9jx9i'] }, mark: ['9i'] },
      { position: lessonPosition({ '7i': 'mG', '6g': 'fS', '5h': 'lP' }), goal: { actions: ['G7ix6g'] }, mark: ['6g'] },
    ],
  },
  {
    id: 'silver', pieces: ['S', 'N'],
    exercises: [
      { position: lessonPosition({ '8j': 'mS', '9i': 'fP', '7i': 'lP' }), goal: { actions: ['S8jx9i'] }, mark: ['9i'] },
      { position: lessonPosition({ '7i': 'mN', '5h': 'fG', '7h': 'lP' }), goal: { actions: ['N7ix5h'] }, mark: ['5h'] },
    ],
  },
  {
    id: 'lance', pieces: ['L', 'R'],
    exercises: [
      { position: lessonPosition({ '9l': 'mL', '9g': 'lG', '10k': 'fP' }), goal: { actions: ['L9lx9g'] }, mark: ['9g'] },
      { position: lessonPosition({ '4i': 'mR', '8i': 'lS', '4f': 'fP' }), goal: { actions: ['R4ix8i'] }, mark: ['8i'] },
    ],
  },
  {
    id: 'bishop', pieces: ['B'],
    exercises: [
      { position: lessonPosition({ '7k': 'mB', '6j': 'mP', '7j': 'mP', '5g': 'fS' }), goal: { actions: ['B7kx5g'] }, mark: ['5g'] },
    ],
  },
  {
    id: 'pawn', pieces: ['P'],
    exercises: [
      { position: lessonPosition({ '7h': 'mP', '6g': 'fP', '8f': 'lG' }), goal: { actions: ['P7hx6g'] }, mark: ['6g'] },
    ],
  },
  {
    id: 'promotion', pieces: ['P', 'S'],
    exercises: [
      { position: lessonPosition({ '4e': 'mP', '6e': 'lP' }), goal: { actions: ['P4e-3d+'] }, mark: ['3d'] },
      { position: lessonPosition({ '8f': 'mS', '9e': 'lP' }), goal: { actions: ['S8fx9e+'] }, mark: ['9e'] },
    ],
  },
  {
    id: 'drops', pieces: ['G', 'P'],
    exercises: [
      { position: lessonPosition({}, { hand: 'G' }), goal: { drop: 'G' }, mark: [] },
      { position: lessonPosition({ '5g': 'fS' }, { hand: 'P' }), goal: { actions: ['P*6h', 'P*5h'] }, mark: ['5g'] },
    ],
  },
  {
    id: 'mate', pieces: ['R', 'G'],
    exercises: [
      { position: lessonPosition({ '6f': 'mR' }, { kings: { '1d': 'fK', '13g': 'lK', '10m': 'mK' } }), goal: { event: 'check' }, mark: ['1d'] },
      { position: lessonPosition({ '3c': 'mP' }, { hand: 'G' }), goal: { event: 'mated' }, mark: ['1a'] },
    ],
  },
  {
    id: 'garden', pieces: ['K'],
    exercises: [
      { position: lessonPosition({ '7h': 'mK', '8i': 'fP' }, { kings: { '1a': 'fK', '13g': 'lK' } }), goal: { event: 'garden' }, mark: ['7g'] },
    ],
  },
  {
    id: 'illumination', pieces: ['+K'],
    exercises: [
      {
        position: lessonPosition({ '7i': 'm+K', '7g': 'fP', '4i': 'lG', '9i': 'fS', '8h': 'fP' }, { kings: { '1a': 'fK', '13g': 'lK' } }),
        goal: { event: 'illuminated' }, mark: ['7g', '4i'],
      },
    ],
  },
  {
    id: 'alliance', pieces: [],
    exercises: [
      { position: lessonPosition({ '5a': 'lR', '5c': 'mS', '6d': 'mP', '5e': 'fG' }, { kings: { '1g': 'fK', '10d': 'lK', '10m': 'mK' } }), goal: { event: 'alliance_formed' }, mark: ['5e'] },
      {
        position: lessonPosition({ '3d': 'fR', '7e': 'lP', '5i': 'lP', '12k': 'mR' }, { toMove: 'F' }), prelude: 'R3d-3e',
        goal: { event: 'alliance_formed' }, mark: ['5i'],
      },
    ],
  },
];

/** The number of exercises in all the lessons. */
export const EXERCISE_COUNT = LESSONS.reduce((n, l) => n + l.exercises.length, 0);
