-- Chat and rematch requests survive a restart like actions do. Portable SQL (SQLite
-- and PostgreSQL).

-- Every chat message of a room, both channels (docs/protocol.md §13). A restored
-- room keeps the last messages of each channel for late joiners.
CREATE TABLE chat_messages (
    room_id TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    id      BIGINT NOT NULL,                -- 1, 2, 3 … per room, both channels
    channel TEXT NOT NULL CHECK (channel IN ('players', 'spectators')),
    seat    TEXT CHECK (seat IN ('first', 'middle', 'last')), -- NULL: a spectator
    name    TEXT NOT NULL,
    text    TEXT NOT NULL,
    at_ms   BIGINT NOT NULL,                -- unix ms when the server received it
    PRIMARY KEY (room_id, id)
);

-- 1 once the seat's player asked for a rematch after the game (0: not, or withdrawn).
ALTER TABLE seats ADD COLUMN rematch BIGINT NOT NULL DEFAULT 0;
