// The words of the room page: notices and the turn line, in the reader's
// language (i18n.js), naming people the way they know them — "you" for the reader,
// else "Name (Seat)".
import { t } from '../i18n.js';
import { seatOf } from './model.js';
import { ownName } from '../players.js';

export function seatLabel(seat) {
  const s = seatOf(seat);
  return s ? t(`room.seat.${s}`) : String(seat ?? '?');
}

export function pieceLabel(kind, promoted = false) {
  const k = String(kind ?? '').replace('+', '');
  const name = t(`room.piece.${k}`);
  return promoted || String(kind ?? '').startsWith('+') ? t('room.piece.promoted', { piece: name }) : name;
}

/** Who sits in `seat`, for the reader: "you", "Kenji (Middle)", "Middle bot (Casual)". */
export function who(seat, ctx, { capital = false } = {}) {
  const s = seatOf(seat);
  if (!s) return t('room.nobody');
  if (ctx.you && s === ctx.you) return t(capital ? 'room.You' : 'room.you');
  const info = ctx.seats?.[s];
  if (info?.bot !== null && info?.bot !== undefined && !info.taken_over) {
    return t('room.who.bot', { seat: seatLabel(s), name: t(`room.bot.level${info.bot}`) });
  }
  const name = ownName(info, s);
  return name ? t('room.who', { name, seat: seatLabel(s) }) : seatLabel(s);
}

export function list(items) {
  if (items.length <= 1) return items.join('');
  if (items.length === 2) return t('room.list.two', { a: items[0], b: items[1] });
  return t('room.list.three', { a: items[0], b: items[1], c: items[2] });
}

function people(players, ctx) {
  // The reader first: "you and Kenji (Last)".
  const seats = (players ?? []).map(seatOf);
  seats.sort((a, b) => (b === ctx.you) - (a === ctx.you));
  return list(seats.map((p, i) => who(p, ctx, { capital: i === 0 })));
}

export function reasonText(reason) {
  const key = `room.reason.${reason}`;
  const text = t(key);
  return text === key ? String(reason ?? '').replaceAll('_', ' ') : text;
}

/** "You win", "Akira (First) wins", "Akira (First) and you win", or a draw. */
export function resultLine(outcome, ctx) {
  const winners = (outcome?.winners ?? []).map(seatOf);
  if (!winners.length) return t('room.result.draw');
  const mine = winners.includes(ctx.you);
  const names = people(winners, ctx);
  return t(winners.length > 1 || mine ? 'room.result.win' : 'room.result.wins', { who: names });
}

/** The seats of the alliance and the one left out of it. */
function allianceSides(allies, ctx) {
  const a = (allies ?? []).map(seatOf);
  const lone = ['first', 'middle', 'last'].find((s) => !a.includes(s) && (ctx.active?.has(s) ?? true));
  return { a, lone };
}

/** The alliance notice: what happened, and what it changes for this reader (RULES §12.5). */
function allianceFormed(ev, ctx) {
  const { a, lone } = allianceSides(ev.allies, ctx);
  const cause = t(`room.cause.${ev.cause}`);
  if (ctx.you && a.includes(ctx.you)) {
    const ally = a.find((s) => s !== ctx.you);
    return `${t('room.alliance.you_ally', { ally: who(ally, ctx), lone: who(lone, ctx), cause })} ${t('room.alliance.effect.ally')}`;
  }
  if (ctx.you && ctx.you === lone) {
    return `${t('room.alliance.you_lone', { allies: people(a, ctx), cause })} ${t('room.alliance.effect.lone')}`;
  }
  return `${t('room.alliance.formed', { allies: people(a, ctx), lone: who(lone, ctx), cause })} ${t('room.alliance.effect.watch', { lone: who(lone, ctx) })}`;
}

function allianceAgreed(ev, ctx) {
  const after = ev.seatsAfter ?? ctx.seats;
  const moved = ev.moved ?? [];
  const mine = ctx.you ? (moved.find((x) => x.from === ctx.you)?.to ?? ctx.you) : null;
  const c2 = { ...ctx, seats: after, you: mine };
  const allies = (ev.allies ?? []).map(seatOf);
  if (mine && mine === seatOf(ev.first)) {
    return t('room.alliance.agreed.you_first', { allies: people(allies, c2) });
  }
  if (mine && allies.includes(mine)) {
    return t('room.alliance.agreed.you_ally', { ally: who(allies.find((s) => s !== mine), c2), first: after?.[seatOf(ev.first)]?.name ?? '?' });
  }
  return t('room.alliance.agreed', { allies: people(allies, c2), first: after?.[seatOf(ev.first)]?.name ?? '?' });
}

/** The text of a notice (an event as model.js passes it on); null for none. */
export function noticeText(n, ctx) {
  const mine = (p) => Boolean(ctx.you) && seatOf(p) === ctx.you;
  const W = (p) => who(p, ctx, { capital: true });
  const w = (p) => who(p, ctx);
  const you = (key, p, params) => t(mine(p) ? `${key}.you` : key, { who: W(p), ...params });
  switch (n.type) {
    case 'check':
      return you('room.note.check', n.player, { by: people(n.by ?? [], ctx) });
    case 'mated':
      if (!n.by) return you('room.note.mated_alone', n.player);
      return you('room.note.mated', n.player, { by: w(n.by) });
    case 'eliminated':
      return you('room.note.eliminated', n.player, { reason: reasonText(n.reason) });
    case 'alliance_formed':
      return allianceFormed(n, ctx);
    case 'alliance_dissolved': {
      const a = (n.allies ?? []).map(seatOf);
      if (ctx.you && a.includes(ctx.you)) return t('room.alliance.dissolved.you', { ally: w(a.find((s) => s !== ctx.you)) });
      return t('room.alliance.dissolved', { allies: people(a, ctx) });
    }
    case 'alliance_agreed':
      return allianceAgreed(n, ctx);
    case 'alliance_cancelled':
      return t('room.alliance.cancelled');
    case 'illuminated':
      return t('room.note.illuminated', { who: W(n.player), cells: (n.cells ?? []).join(', ') });
    case 'captured': {
      const piece = pieceLabel(n.piece, n.promoted);
      if (mine(n.by)) return t('room.note.captured.by_you', { owner: w(n.owner), piece, cell: n.cell });
      if (mine(n.owner)) return t('room.note.captured.yours', { by: W(n.by), piece, cell: n.cell });
      return t('room.note.captured', { by: W(n.by), owner: w(n.owner), piece, cell: n.cell });
    }
    case 'promoted':
      return you('room.note.promoted', n.player, { piece: pieceLabel(String(n.piece ?? '').replace('+', '')), cell: n.cell });
    case 'resigned':
      return you('room.note.resigned', n.player);
    case 'forfeited':
      return you('room.note.forfeited', n.player, { reason: reasonText(n.reason) });
    case 'draw_agreed':
      return t('room.note.draw_agreed');
    case 'game_over':
      return t('room.note.game_over', { result: resultLine(n, ctx), reason: reasonText(n.reason) });
    case 'game_started':
      return t('room.note.started');
    case 'game_aborted':
      return you('ctl.note.game_aborted', n.seat);
    case 'player_joined':
    case 'bot_added':
      return t('room.note.joined', { name: n.name ?? '?', seat: seatLabel(n.seat) });
    case 'player_left':
      return you('room.note.left', n.seat);
    case 'player_reconnected':
      return you('room.note.back', n.seat);
    case 'alliance_proposed':
      if (mine(n.from)) return t('room.note.proposed.by_you', { to: w(n.to) });
      if (mine(n.to)) return t('room.note.proposed.to_you', { from: W(n.from) });
      return t('room.note.proposed', { from: W(n.from), to: w(n.to) });
    case 'alliance_declined':
      return n.by ? you('room.note.declined', n.by) : t('room.note.declined_dropped');
    case 'seat_freed':
      return t('room.note.seat_freed', { seat: seatLabel(n.seat) });
    case 'draw_offered':
      return you('room.note.draw_offered', n.seat);
    case 'draw_declined':
      return you('room.note.draw_declined', n.seat);
    case 'draw_withdrawn':
      return you('room.note.draw_withdrawn', n.seat);
    case 'draw_expired':
      return t('room.note.draw_expired');
    case 'rematch_requested':
      return you('room.note.rematch_requested', n.seat);
    case 'rematch_started':
      return t('room.note.rematch_started');
    case 'bot_removed':
      return t('room.note.bot_removed', { seat: seatLabel(n.seat) });
    case 'bot_took_over':
      return t('room.note.bot_took_over', { name: n.name ?? seatLabel(n.seat), level: t(`bot.level${n.level}`), seat: seatLabel(n.seat) });
    case 'takeback_offered':
      return you('ctl.note.takeback_offered', n.seat);
    case 'takeback_declined':
      return you('ctl.note.takeback_declined', n.seat);
    case 'took_back':
      return you('ctl.note.took_back', n.seat);
    case 'time_given': {
      const s = Math.round((n.ms ?? 15000) / 1000);
      if (mine(n.from)) return t('ctl.note.time_given.by_you', { to: w(n.to), s });
      if (mine(n.to)) return t('ctl.note.time_given.to_you', { from: W(n.from), s });
      return t('ctl.note.time_given', { from: W(n.from), to: w(n.to), s });
    }
    case 'bot_released':
      return t('room.note.bot_released', { name: n.name ?? seatLabel(n.seat), seat: seatLabel(n.seat) });
    default:
      return null;
  }
}
