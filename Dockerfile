# The sannin server in a small Debian image.
#
#   docker build -t sannin .
#   docker run -d -p 8080:8080 -v sannin-data:/data --name sannin sannin
#
# The site is then on http://localhost:8080, its SQLite database in the volume at
# /data. For PostgreSQL, see docker-compose.yml. Every setting of `sannin serve` can be
# given by its environment variable (README "Settings", .env.example).
# crates/sannin/tests/selfhost.rs checks this file against the server's settings.

# ---- build: the release binary ------------------------------------------------------
FROM rust:1-bookworm AS build
WORKDIR /src
# Release binaries in the image carry no debug info (the workspace profile keeps line
# tables for local profiling).
ENV CARGO_PROFILE_RELEASE_DEBUG=0 \
    CARGO_TERM_COLOR=never
# Only what the build reads (see .dockerignore). `sqlx::migrate!` embeds migrations/
# at compile time.
COPY Cargo.toml Cargo.lock ./
COPY crates ./crates
COPY migrations ./migrations
# BuildKit cache mounts keep the crates.io downloads and compiled dependencies between
# builds, so a source change recompiles only the workspace crates. The binary is copied
# out of the cached target directory in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/usr/local/cargo/git,sharing=locked \
    --mount=type=cache,target=/src/target,sharing=locked \
    cargo build --release -p sannin --locked \
    && install -D -m 0755 target/release/sannin /out/sannin

# ---- client: the browser client bundled, minified and precompressed -----------------
# scripts/build-static.mjs (docs/performance.md, "First load"): a page asks for a few
# files instead of ninety. The server serves static/ as it is too; the image serves this.
FROM node:22-bookworm-slim AS client
WORKDIR /src
COPY scripts/build/package.json scripts/build/package-lock.json ./scripts/build/
RUN cd scripts/build && npm ci --no-audit --no-fund
COPY scripts/build-static.mjs ./scripts/
COPY static ./static
RUN node scripts/build-static.mjs --out /out/static

# ---- runtime ------------------------------------------------------------------------
FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 sannin \
    && useradd --system --uid 10001 --gid sannin --home-dir /data --no-create-home \
       --shell /usr/sbin/nologin sannin \
    && mkdir -p /data \
    && chown sannin:sannin /data

COPY --from=build /out/sannin /usr/local/bin/sannin
COPY --from=client /out/static /usr/share/sannin/static

# Listen on all interfaces of the container; the browser client (built above) from the
# fixed path; the SQLite database in the /data volume (a postgres:// DATABASE_URL
# replaces it).
ENV SANNIN_ADDR=0.0.0.0:8080 \
    SANNIN_STATIC_DIR=/usr/share/sannin/static \
    DATABASE_URL=sqlite:///data/sannin.db \
    RUST_LOG=info

WORKDIR /data
VOLUME ["/data"]
USER 10001:10001
EXPOSE 8080

# `sannin healthcheck` asks GET /healthz on the loopback side of SANNIN_ADDR, so the
# check follows the port if SANNIN_ADDR is changed at `docker run`.
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
    CMD ["sannin", "healthcheck"]

# SIGTERM (docker stop) shuts the server down gracefully.
ENTRYPOINT ["sannin"]
CMD ["serve"]
