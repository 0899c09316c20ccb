-- Account names in any script (docs/accounts.md, "Names"): the UTS #39 skeleton of each
-- name, unique, so that no name is drawn like another. Filled in by the server at start
-- for the accounts made before (an older pair drawn alike keeps its first skeleton
-- only).
ALTER TABLE accounts ADD COLUMN name_skeleton TEXT;
CREATE UNIQUE INDEX accounts_name_skeleton ON accounts (name_skeleton);
