-- Issue 6: computer players. A seat row whose `bot` is set is played by a bot of that
-- level (0 to 3). A bot added to a seat has no token (its `token_hash` is the
-- placeholder 'bot', which no SHA-256 hex digest equals, so nobody can resume it); a
-- bot that took over from a player who abandoned keeps that player's name and token
-- hash, so that the player can resume and take the seat back. NULL: a human seat.
-- Portable SQL (SQLite and PostgreSQL).
ALTER TABLE seats ADD COLUMN bot BIGINT;
