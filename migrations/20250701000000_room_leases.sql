-- Cluster mode (`--nats-url`): which node owns each room. Portable SQL (SQLite and
-- PostgreSQL); only PostgreSQL sites use it, since a cluster needs a shared database.
--
-- The owner renews `expires_at` (unix ms, the database's clock) every fraction of
-- the lease time; another node takes an expired lease by raising `epoch`. Every
-- action row is written only while this row still holds the writer's node and
-- epoch, checked in the same statement (crates/sannin-server/src/cluster/lease.rs).
CREATE TABLE room_leases (
    room_id    TEXT PRIMARY KEY,
    node       TEXT NOT NULL,
    epoch      BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX room_leases_node ON room_leases (node);

-- Cluster mode: the per-address room budgets (`--rooms-per-minute`,
-- `--bot-rooms-per-minute`) shared by every node, one row per address and budget:
-- the theoretical arrival time of the next allowed request (GCRA, the algorithm of
-- the single node's in-memory limiter), unix ms on the database's clock.
CREATE TABLE client_budgets (
    budget TEXT PRIMARY KEY,
    tat    BIGINT NOT NULL
);
