-- Sannin server schema. Portable SQL: runs unchanged on SQLite and PostgreSQL
-- (the server talks to both through sqlx's `Any` driver). Times are unix milliseconds.

CREATE TABLE rooms (
    id             TEXT PRIMARY KEY,           -- uuid v4, hyphenated
    status         TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'finished')),
    start_position TEXT,                       -- NULL: the standard start (RULES §4)
    result         TEXT,                       -- the Outcome as JSON once finished
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE INDEX rooms_status ON rooms (status);

-- One row per taken seat. The token itself is never stored: only its sha256 (hex).
CREATE TABLE seats (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seat       TEXT NOT NULL CHECK (seat IN ('first', 'middle', 'last')),
    token_hash TEXT NOT NULL,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (room_id, seat)
);

-- Every accepted action, in play order; replaying them into a `Game` rebuilds the room.
CREATE TABLE actions (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    ply        BIGINT NOT NULL,                -- 1, 2, 3 … per room
    kind       TEXT NOT NULL CHECK (kind IN ('act', 'resign', 'forfeit', 'draw')),
    player     TEXT CHECK (player IN ('first', 'middle', 'last')), -- NULL for a draw
    text       TEXT NOT NULL,                  -- canonical action, or the reason ('abandoned', …)
    created_at BIGINT NOT NULL,
    PRIMARY KEY (room_id, ply)
);
