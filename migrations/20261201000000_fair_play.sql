-- Fair play (docs/moderation.md, "Fair play"). Portable SQL (SQLite and PostgreSQL).

-- What each rated game says about each pair of its players, written when the game is
-- rated: the sums of a pair's rows are the figures /mod shows. `account_a` is the
-- lesser of the two account ids.
CREATE TABLE pair_games (
    room_id             TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    account_a           TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    account_b           TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    played_at           BIGINT NOT NULL,
    allied              BIGINT NOT NULL,  -- 1: formally allied (left out of the figures)
    first_second        BIGINT NOT NULL,  -- 1: both finished above the third
    captures_between    BIGINT NOT NULL,
    captures_on_third   BIGINT NOT NULL,
    checks_between      BIGINT NOT NULL,
    checks_on_third     BIGINT NOT NULL,
    gave_up_for_partner BIGINT NOT NULL,  -- give-ups by one while the other led
    PRIMARY KEY (room_id, account_a, account_b)
);
CREATE INDEX pair_games_pair ON pair_games (account_a, account_b, played_at);

-- Pairs a moderator keeps apart: quick pairing never seats them at one table.
CREATE TABLE kept_apart (
    account_a TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    account_b TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    by_name   TEXT NOT NULL,
    reason    TEXT NOT NULL,
    at        BIGINT NOT NULL,
    PRIMARY KEY (account_a, account_b)
);

-- Each account's agreement with the computer review of each of its reviewed rated
-- games, read from the review once (the review's JSON is large).
CREATE TABLE engine_agreement (
    room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    played_at  BIGINT NOT NULL,
    moves      BIGINT NOT NULL,           -- its judged moves
    matches    BIGINT NOT NULL,           -- of those, the review's best move
    loss_sum   DOUBLE PRECISION NOT NULL, -- the sum of their losses (shares of the game)
    PRIMARY KEY (room_id, account_id)
);
CREATE INDEX engine_agreement_account ON engine_agreement (account_id, played_at);

-- A sleeping room's live position (its repetition key; NULL: none, or awake): the
-- engine stays locked for a correspondence game while its room is out of memory, on
-- every node and after a restart.
ALTER TABLE rooms ADD COLUMN sleep_key BIGINT;
CREATE INDEX rooms_sleep_key ON rooms (sleep_key);
