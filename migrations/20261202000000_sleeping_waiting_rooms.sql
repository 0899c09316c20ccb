-- A waiting correspondence room that nobody is connected to sleeps as a game between
-- moves does. While it sleeps the lobby still lists it, from the summary it stored
-- when it fell asleep (JSON, as `GET /api/rooms` shows it), and its time to live goes
-- on counting from when it was last left alone (unix ms). Both NULL for any other room.
ALTER TABLE rooms ADD COLUMN sleep_summary TEXT;
ALTER TABLE rooms ADD COLUMN sleep_alone_since BIGINT;
