# emsim in a container: `docker build -t emsim .` then
#   docker run --rm -p 8080:8080 -e EMSIM_ADMIN_TOKEN=change-me -v emsim-data:/data emsim
# Extra arguments go to `emsim serve` (see `emsim serve --help`); every flag can also be given as
# its EMSIM_* variable. deploy/docker-compose.yml shows it beside an app under test.
# scripts/test.d/61-docker.sh checks this file without a container engine (build steps, runtime
# packages, the ENTRYPOINT/ENV/HEALTHCHECK run on the host).

# ---- build: the same scripts CI runs (scripts/test.sh), so the image builds as the tests do -------
FROM debian:bookworm-slim AS build
WORKDIR /src
# The dependency script alone first: its layer (the apt-get install) stays cached while only
# sources change.
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN bash scripts/install-deps.sh serve
COPY . .
# Release, only the emsim binary (as scripts/run.sh); then the install layout the binary finds its
# data in: /opt/emsim/bin/emsim beside /opt/emsim/share/emsim/{schemas,fixtures,scenarios}.
RUN EMSIM_BUILD_DIR=/build EMSIM_BUILD_TYPE=Release bash scripts/build.sh emsim \
 && cmake --install /build --prefix /opt/emsim --strip

# ---- runtime: the shared libraries the binary needs and nothing to build with ---------------------
FROM debian:bookworm-slim
# The libraries are the .deb's Depends (what dpkg-shlibdeps finds in the binary; libc6, libgcc-s1
# and libstdc++6 are in the base image already). libcpp-httplib0.11 is cpp-httplib's shared
# library on bookworm and pulls in libbrotli1. ca-certificates: webhooks to https:// receivers;
# curl: the HEALTHCHECK below.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libjemalloc2 libsqlite3-0 libyaml-0-2 libssl3 libcpp-httplib0.11 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
# Not root: a fixed uid, so a bind-mounted /data can be chowned to it from the host.
RUN useradd --system --user-group --uid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin emsim \
 && mkdir /data && chown emsim:emsim /data
COPY --from=build /opt/emsim /opt/emsim
# Listen on every interface of the container (emsim then refuses to start without an admin token:
# pass EMSIM_ADMIN_TOKEN at run time; none is baked in) and keep durable state in the volume.
ENV EMSIM_HOST=0.0.0.0 EMSIM_PORT=8080 EMSIM_DATA_DIR=/data
# Declared after the chown so a new named volume starts owned by emsim.
VOLUME /data
USER emsim
WORKDIR /data
EXPOSE 8080
# Shell form, so the container's own EMSIM_ADMIN_TOKEN and EMSIM_PORT are read when it runs.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS -o /dev/null -H "Authorization: Bearer ${EMSIM_ADMIN_TOKEN}" "http://127.0.0.1:${EMSIM_PORT:-8080}/_sim/health" || exit 1
ENTRYPOINT ["/opt/emsim/bin/emsim", "serve"]
