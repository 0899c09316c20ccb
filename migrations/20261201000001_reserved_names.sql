-- Names that staff (moderators and admins) went by, kept from everyone else once the
-- account is renamed or deleted, so that nobody can take an admin's old name and pass
-- for it. Found by the UTS #39 skeleton of the name, as accounts are.
CREATE TABLE reserved_names (
    name_skeleton TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    reserved_at   BIGINT NOT NULL
);
