-- The same checks on `actions`, written as comparisons. Portable SQL (SQLite and
-- PostgreSQL).
--
-- SQLite codes `x IN (a, b, c)` with three or more constants by building a temporary
-- index of the constants every time a statement runs; for `actions`, the table every
-- accepted move is written to, the two checks cost more than the row itself. A chain
-- of `=` tests accepts and refuses exactly the same values (NULL included: a draw's
-- NULL player passes, as before) and costs a few comparisons. Neither SQLite nor
-- PostgreSQL can change a check in place, so the table is rebuilt with its rows.
--
-- The rename comes first: it locks the table (PostgreSQL: against every other use,
-- until this migration commits), so a node of a cluster still running the previous
-- version cannot add a row to the old table after its rows were copied; its writes
-- wait, then go to the new table.
ALTER TABLE actions RENAME TO actions_unchecked;

CREATE TABLE actions_checked (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    ply        BIGINT NOT NULL,                -- 1, 2, 3 … per room
    kind       TEXT NOT NULL
               CHECK (kind = 'act' OR kind = 'resign' OR kind = 'forfeit' OR kind = 'draw'),
    player     TEXT                            -- NULL for a draw
               CHECK (player = 'first' OR player = 'middle' OR player = 'last'),
    text       TEXT NOT NULL,                  -- canonical action, or the reason ('abandoned', …)
    created_at BIGINT NOT NULL,
    clocks     TEXT,                           -- time left of each player after it (JSON)
    PRIMARY KEY (room_id, ply)
);

INSERT INTO actions_checked (room_id, ply, kind, player, text, created_at, clocks)
SELECT room_id, ply, kind, player, text, created_at, clocks FROM actions_unchecked;

DROP TABLE actions_unchecked;

-- (On PostgreSQL the primary key's index keeps the name `actions_checked_pkey`.)
ALTER TABLE actions_checked RENAME TO actions;
