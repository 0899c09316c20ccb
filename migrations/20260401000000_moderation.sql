-- Moderation (docs/moderation.md): roles, sanctions, reports and the log of every
-- moderator's action; who wrote each chat line, and the addresses accounts used, so
-- that a moderator can see them. Portable SQL (SQLite and PostgreSQL).

ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'player';

-- The writer of a chat line: its account (if logged in) and client address (IPv4, or
-- an IPv6 /64). NULL for lines written before this migration.
ALTER TABLE chat_messages ADD COLUMN account_id TEXT;
ALTER TABLE chat_messages ADD COLUMN addr TEXT;
CREATE INDEX chat_messages_account ON chat_messages (account_id) WHERE account_id IS NOT NULL;

-- The addresses each account logged in or registered from.
CREATE TABLE account_addresses (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    addr       TEXT NOT NULL,
    first_seen BIGINT NOT NULL,
    last_seen  BIGINT NOT NULL,
    PRIMARY KEY (account_id, addr)
);

-- A ban or a mute of an account or of an address range, until `until` (NULL: until
-- lifted).
CREATE TABLE sanctions (
    id         TEXT PRIMARY KEY,               -- uuid v4
    kind       TEXT NOT NULL,                  -- 'ban' or 'mute'
    account_id TEXT REFERENCES accounts (id) ON DELETE CASCADE,
    addr_range TEXT,                           -- CIDR, when not an account's
    reason     TEXT NOT NULL,
    by_name    TEXT NOT NULL,                  -- the moderator, or 'command line'
    created_at BIGINT NOT NULL,
    until      BIGINT,
    lifted_at  BIGINT,
    lifted_by  TEXT
);

CREATE INDEX sanctions_account ON sanctions (account_id);

-- A report of a chat line or a player. `context` is the JSON array of the lines
-- around a reported chat line, copied when the report is made.
CREATE TABLE reports (
    id            TEXT PRIMARY KEY,            -- uuid v4
    created_at    BIGINT NOT NULL,
    reason        TEXT NOT NULL,
    text          TEXT NOT NULL,
    reporter_id   TEXT REFERENCES accounts (id) ON DELETE SET NULL,
    reporter_addr TEXT,
    target_name   TEXT NOT NULL,
    target_id     TEXT REFERENCES accounts (id) ON DELETE SET NULL,
    target_addr   TEXT,
    room_id       TEXT,
    chat_id       BIGINT,
    seat          TEXT,
    context       TEXT NOT NULL,
    closed_at     BIGINT,
    closed_by     TEXT,
    resolution    TEXT
);

CREATE INDEX reports_open ON reports (created_at) WHERE closed_at IS NULL;

-- Every moderator's action, and every command of `sannin admin` that changes
-- something.
CREATE TABLE mod_log (
    id      TEXT PRIMARY KEY,                  -- uuid v4
    at      BIGINT NOT NULL,
    by_name TEXT NOT NULL,
    action  TEXT NOT NULL,
    target  TEXT NOT NULL,
    reason  TEXT NOT NULL,
    details TEXT NOT NULL                      -- JSON object
);

CREATE INDEX mod_log_at ON mod_log (at);
