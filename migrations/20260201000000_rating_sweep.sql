-- The periodic rating sweep (docs/ratings.md) looks at the rooms that finished in the
-- last day: by this index, not by every finished room.
CREATE INDEX rooms_finished_at ON rooms (updated_at) WHERE status = 'finished';
