-- Devices that logged in to an account (docs/accounts.md): a long-lived cookie whose
-- token's sha256 (hex) is stored here lets its holder past the account name's log-in
-- budget, which strangers can spend. It proves no identity: the password is still
-- checked. Portable SQL (SQLite and PostgreSQL).
CREATE TABLE known_devices (
    token_hash TEXT PRIMARY KEY,               -- sha256 of the cookie's token, hex
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX known_devices_account ON known_devices (account_id);
