-- Cluster mode (`--nats-url`): the per-address limits that are counts rather than
-- rates, shared by every node. Portable SQL; only PostgreSQL sites use these tables.
--
-- Each node renews its row of `cluster_nodes` (unix ms, the database's clock) with
-- its leases; a node that stops renewing (killed, cut off) stops counting.
CREATE TABLE cluster_nodes (
    node       TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
);

-- WebSockets open per client address (`--max-ws-per-address`), one row per address
-- and node: an address's count is the sum over the live nodes, so the sockets of a
-- dead node stop counting when its heartbeat runs out.
CREATE TABLE client_sockets (
    client TEXT NOT NULL,
    node   TEXT NOT NULL,
    open   BIGINT NOT NULL,
    PRIMARY KEY (client, node)
);

-- Rooms of bots alone per client address (`--max-bot-only-rooms-per-address`): the
-- rooms each address created, counted while they are unfinished and played by bots
-- alone. A row is written before its room (a reservation under a made-up id, renamed
-- to the room's id once it exists), so that two nodes cannot both give the last place.
CREATE TABLE bot_only_rooms (
    room_id    TEXT PRIMARY KEY,
    client     TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX bot_only_rooms_client ON bot_only_rooms (client);
