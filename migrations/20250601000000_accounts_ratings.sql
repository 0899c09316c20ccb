-- Optional accounts, their sessions, and ratings of rated games (docs/accounts.md,
-- docs/ratings.md). Portable SQL (SQLite and PostgreSQL through sqlx's Any driver).
-- Passwords are stored only as argon2id PHC strings; session tokens only as their
-- sha256 (hex), like seat tokens.

CREATE TABLE accounts (
    id            TEXT PRIMARY KEY,            -- uuid v4, hyphenated
    name          TEXT NOT NULL,               -- as registered; shown and seated as is
    name_key      TEXT NOT NULL UNIQUE,        -- lower case: names differ by more than case
    password_hash TEXT NOT NULL,               -- argon2id, PHC string format
    created_at    BIGINT NOT NULL,
    -- Weng-Lin (OpenSkill) rating: mean and uncertainty (docs/ratings.md).
    mu            DOUBLE PRECISION NOT NULL,
    sigma         DOUBLE PRECISION NOT NULL,
    -- Rated games counted; also the version of the rating row: an update names the
    -- count it read, so two nodes never both apply a result to the same old rating.
    games         BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,               -- sha256 of the cookie's token, hex
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX sessions_account ON sessions (account_id);

-- One row per rated game whose result moved ratings, written in the same transaction
-- as the rating rows: a game is rated exactly once, whichever node or restart gets to
-- it first.
CREATE TABLE rated_games (
    room_id  TEXT PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    rated_at BIGINT NOT NULL,
    -- 'team' (two allies against one) or 'free_for_all'; 'skipped' when the game could
    -- not be rated (a seat without an account).
    kind     TEXT NOT NULL
);

-- Each account's rating before and after each rated game.
CREATE TABLE rating_history (
    room_id       TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    seat          TEXT NOT NULL CHECK (seat IN ('first', 'middle', 'last')),
    place         BIGINT NOT NULL,             -- 1 best; equal places are ties
    result        TEXT NOT NULL CHECK (result IN ('win', 'loss', 'draw')),
    mu_before     DOUBLE PRECISION NOT NULL,
    sigma_before  DOUBLE PRECISION NOT NULL,
    mu_after      DOUBLE PRECISION NOT NULL,
    sigma_after   DOUBLE PRECISION NOT NULL,
    rated_at      BIGINT NOT NULL,
    PRIMARY KEY (room_id, account_id)
);

CREATE INDEX rating_history_account ON rating_history (account_id, rated_at);
