-- Quick pairing (docs/pairing.md): the tickets waiting in the pools, and the
-- cooldowns of people who gave up tables. Portable SQL (SQLite and PostgreSQL).
--
-- A ticket itself is a secret its holder keeps: what is stored is its key, the
-- SHA-256 of the seat token the ticket gives, which is also the token hash of the
-- seat it takes once matched. A database that leaks gives no ticket and no seat away.
CREATE TABLE pairing_tickets (
    ticket_key    TEXT PRIMARY KEY,
    pool          TEXT NOT NULL,           -- the preset's name, ' rated' for rated pools
    person        TEXT NOT NULL,           -- account:ID, browser:ID or ticket:KEY
    name          TEXT NOT NULL,
    rating        BIGINT,                  -- display rating, with an account
    bots_after_ms BIGINT,                  -- computer players may fill the table after
    queued_at     BIGINT NOT NULL,         -- unix ms; the front of a pool is the smallest
    created_at    BIGINT NOT NULL,
    room_id       TEXT,                    -- once matched
    seat          TEXT CHECK (seat = 'first' OR seat = 'middle' OR seat = 'last')
);
CREATE INDEX pairing_tickets_pool ON pairing_tickets (pool, queued_at);

-- People who left tables unplayed (not connected, or no first move in time).
CREATE TABLE pairing_cooldowns (
    person     TEXT PRIMARY KEY,
    aborts     BIGINT NOT NULL,            -- tables given up in a row
    last_abort BIGINT NOT NULL,            -- unix ms
    until_ms   BIGINT NOT NULL             -- no ticket before then
);
