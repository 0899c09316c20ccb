-- Issue 7: room settings (time control, private flag, rematch link) and the clocks
-- after each action, so that a restart restores them. Portable SQL (SQLite and
-- PostgreSQL). Rooms made before this migration have no settings: no clock, public.

-- JSON: {"clock": {kind, main_ms, increment_ms, byoyomi_ms, periods} | null,
--        "private": bool, "rematch_of": uuid | null, "rematch": uuid | null}
ALTER TABLE rooms ADD COLUMN settings TEXT;

-- JSON: {"first": {"main_ms": N, "periods": N}, "middle": …, "last": …} — the time left
-- of each player once this action was played; NULL in rooms without a clock.
ALTER TABLE actions ADD COLUMN clocks TEXT;
