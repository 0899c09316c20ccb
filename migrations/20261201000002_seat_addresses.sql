-- The client address (IPv4, or an IPv6 /64) a guest or a player took its seat from, so
-- that a report of the seat names the address of whoever sits there, not that of an
-- earlier occupant's chat line. NULL for bots and for seats taken before.
ALTER TABLE seats ADD COLUMN addr TEXT;
