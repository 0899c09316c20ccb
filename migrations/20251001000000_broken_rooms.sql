-- A room whose stored rows this server cannot read back (a value written by a newer
-- version, a row damaged by hand) is marked with the reason instead of stopping the
-- server: the lobby's lists and the cluster's sweep for rooms without an owner pass
-- it over, and its page says it cannot be shown. The mark is cleared when the room
-- reads back again (after an upgrade). Portable SQL (SQLite and PostgreSQL).
ALTER TABLE rooms ADD COLUMN broken TEXT;
