-- Account recovery (docs/accounts.md, "E-mail and a forgotten password"): an optional
-- address on each account, verified by a link, and the links mailed (to verify an
-- address, to set a new password). A link's token is stored only as its sha256 (hex),
-- like session tokens; each works once, until it expires. Portable SQL.
ALTER TABLE accounts ADD COLUMN email TEXT;
ALTER TABLE accounts ADD COLUMN email_verified_at BIGINT;

CREATE TABLE account_links (
    token_hash TEXT PRIMARY KEY,               -- sha256 of the link's token, hex
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL,                  -- 'verify_email' or 'reset_password'
    email      TEXT,                           -- the address a 'verify_email' link proves
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT                          -- set when it worked: it works once
);

CREATE INDEX account_links_account ON account_links (account_id);
