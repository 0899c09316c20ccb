-- Correspondence games, rooms that sleep, "my games" and Web Push
-- (docs/correspondence.md). Portable SQL (SQLite and PostgreSQL).

-- When the game started (unix ms): a correspondence game's first deadline counts
-- from it.
ALTER TABLE rooms ADD COLUMN started_at BIGINT;

-- Set while a room sleeps (out of memory): when its next timer is due, unix ms. NULL
-- for a room that is awake (loaded, or to be restored at start) and for finished
-- rooms.
ALTER TABLE rooms ADD COLUMN wake_at BIGINT;
CREATE INDEX rooms_wake_at ON rooms (wake_at) WHERE wake_at IS NOT NULL;
-- What a start restores: the rooms not finished and awake.
CREATE INDEX rooms_awake ON rooms (created_at, id) WHERE status <> 'finished' AND wake_at IS NULL;

-- The account that holds a seat (a logged-in player), so that its games follow it to
-- any device.
ALTER TABLE seats ADD COLUMN account_id TEXT;
CREATE INDEX seats_account ON seats (account_id) WHERE account_id IS NOT NULL;
CREATE INDEX seats_token ON seats (token_hash);

-- The server's VAPID key pair (RFC 8292), made at the first start: one row.
CREATE TABLE push_vapid (
    id          BIGINT PRIMARY KEY CHECK (id = 1),
    private_key TEXT NOT NULL,                 -- P-256 scalar, base64url
    public_key  TEXT NOT NULL,                 -- uncompressed point, base64url
    created_at  BIGINT NOT NULL
);

-- A browser's push subscription.
CREATE TABLE push_subscriptions (
    id         TEXT PRIMARY KEY,               -- random, the browser's handle on it
    endpoint   TEXT NOT NULL UNIQUE,
    p256dh     TEXT NOT NULL,                  -- the browser's key, base64url
    auth       TEXT NOT NULL,                  -- its auth secret, base64url
    account_id TEXT,                           -- a logged-in account's seats too
    kinds      TEXT NOT NULL,                  -- notifications wanted, comma separated
    lang       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX push_subscriptions_account ON push_subscriptions (account_id)
    WHERE account_id IS NOT NULL;

-- The seats (and pairing tickets) a subscription covers, by the hash of the seat's
-- token: the secrets themselves are never stored.
CREATE TABLE push_tokens (
    subscription_id TEXT NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    token_hash      TEXT NOT NULL,
    PRIMARY KEY (subscription_id, token_hash)
);
CREATE INDEX push_tokens_hash ON push_tokens (token_hash);
