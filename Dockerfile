# vidrelay's production image; compose.yaml runs it beside a local Bot API server.
#   docker build -t vidrelay .
#   docker run --init -v vidrelay-data:/data -e VIDRELAY_BOT_TOKEN=... vidrelay
# The runtime dependencies come from requirements.lock (`make lock`), installed only if every
# file's hash matches; the dev tools never enter the image.

FROM python:3.11-slim-bookworm AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
RUN python -m venv /opt/venv
COPY requirements.lock ./
RUN /opt/venv/bin/pip install --require-hashes --no-deps --requirement requirements.lock
COPY pyproject.toml README.md ./
COPY src ./src
# --no-deps: everything the project needs is already there, pinned; `pip check` proves the lock
# left nothing out instead of letting pip fetch an unpinned version. setuptools came with the
# venv and serves only builds (pip's build isolation brings its own): it stays out of the image.
RUN /opt/venv/bin/pip install --no-deps . \
 && /opt/venv/bin/pip uninstall --yes --quiet setuptools \
 && /opt/venv/bin/pip check


FROM python:3.11-slim-bookworm AS runtime

# Debian stable ships only security fixes for its release: the base tag pins the release, and an
# exact package version would break the build at the next security update.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg \
 && rm -rf /var/lib/apt/lists/*

# A fixed uid, so a bind-mounted data folder can be chowned to it on the host.
RUN groupadd --system --gid 10001 vidrelay \
 && useradd --system --uid 10001 --gid vidrelay --create-home --home-dir /home/vidrelay \
      --shell /usr/sbin/nologin vidrelay \
 && install -d -o vidrelay -g vidrelay -m 0755 /data

COPY --from=build /opt/venv /opt/venv
COPY docker/healthcheck.py /usr/local/lib/vidrelay/healthcheck.py

# /opt/venv/bin first: `vidrelay`, the `python` whose pip the yt-dlp updater runs, and `deno`,
# which yt-dlp finds on PATH. The updater installs new yt-dlp releases under
# $VIDRELAY_DATA_DIR/ytdlp/, on the volume, so an update survives a restart of the container.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIDRELAY_DATA_DIR=/data \
    VIDRELAY_METRICS_PORT=9464

# Numeric, so the runtime (and Kubernetes' runAsNonRoot) can tell it is not root without /etc/passwd.
USER 10001:10001
WORKDIR /data
# The SQLite store, the blobs, staging and the updater's yt-dlp installs.
VOLUME ["/data"]
# Metrics and /healthz; 8080 only for `run --webhook`.
EXPOSE 9464 8080

# SIGTERM starts the graceful stop: no new claims, in-flight jobs get
# VIDRELAY_SHUTDOWN_GRACE_SECONDS, the rest stays queued (compose.yaml's stop_grace_period is longer).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "/usr/local/lib/vidrelay/healthcheck.py"]

ENTRYPOINT ["vidrelay"]
CMD ["run"]
