# ReMVVM Server: the example app in a container.
#   docker build -t remvvm-server .
#   docker run --rm -p 8080:8080 remvvm-server
# scripts/check-dockerfile runs this file's build and runtime steps on a Debian machine
# without Docker, so the recipe is tested even where no engine is available.

# ---- build: the official Swift image (Debian 12) ----
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libmicrohttpd-dev pkg-config libsqlite3-dev \
        libtcmalloc-minimal4 libssl-dev libpq-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies first so that this layer is cached across source changes.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
# The package also declares the README's example (Examples/Counter): its folder must exist for the manifest.
COPY Examples ./Examples
RUN swift build -c release --product remvvm-server --static-swift-stdlib \
        -Xswiftc -cross-module-optimization \
    && mkdir -p /staging \
    && cp "$(swift build -c release --show-bin-path)/remvvm-server" /staging/

# ---- runtime: slim Debian with the libmicrohttpd, SQLite, TCMalloc, OpenSSL and libpq runtime packages ----
FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libmicrohttpd12 libsqlite3-0 libtcmalloc-minimal4 \
        libssl3 libpq5 curl ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin remvvm
WORKDIR /app
COPY --from=build /staging/remvvm-server /app/remvvm-server
COPY public /app/public
RUN mkdir -p /app/data && chown remvvm /app/data
USER remvvm
ENV REMVVM_HOST=0.0.0.0 \
    REMVVM_PORT=8080 \
    REMVVM_PUBLIC_DIR=/app/public \
    REMVVM_DATA_DIR=/app/data
# The durable sessions (one SQLite file); mount a volume here to keep them across containers.
VOLUME /app/data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/remvvm-server"]
