-- Computer reviews of finished games (docs/review.md): one row per game, the queue
-- while it waits or runs, the result once done. The rows are also the reviews'
-- budgets: what an address or an account asked for in the last day. Portable SQL
-- (SQLite and PostgreSQL).

CREATE TABLE game_reviews (
    room_id      TEXT PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    state        TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    requester    TEXT NOT NULL,   -- whose turn in the fair queue: 'account:<id>' or 'addr:<addr>'
    addr         TEXT NOT NULL,   -- the client address that asked (IPv4, or an IPv6 /64)
    account_id   TEXT,            -- its account, when logged in
    requested_at BIGINT NOT NULL,
    node         TEXT,            -- running: the node reviewing it
    lease_until  BIGINT,          -- running: another node may take it over after this
    plies_done   INTEGER NOT NULL DEFAULT 0,
    plies_total  INTEGER NOT NULL,
    nodes        BIGINT NOT NULL, -- the search budget of each position
    result       TEXT,            -- done: the review as JSON; failed: why
    finished_at  BIGINT
);

CREATE INDEX game_reviews_queue ON game_reviews (state, requested_at);
CREATE INDEX game_reviews_addr ON game_reviews (addr, requested_at);
CREATE INDEX game_reviews_account ON game_reviews (account_id, requested_at);
