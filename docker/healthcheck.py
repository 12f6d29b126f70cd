"""The image's HEALTHCHECK: exit 0 when `/healthz` on VIDRELAY_METRICS_PORT answers 200, else 1.

The image has no curl; this runs with the image's own Python and the standard library only.
It prints one line on failure: Docker keeps it in `docker inspect`'s health log.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

TIMEOUT_SECONDS = 5.0
HTTP_OK = 200


def healthz_url(environ: dict[str, str]) -> str | None:
    port = environ.get("VIDRELAY_METRICS_PORT", "").strip()
    return f"http://127.0.0.1:{port}/healthz" if port not in {"", "0"} else None


def check(url: str) -> str | None:
    """None when healthy, else why not."""
    # No proxy: an HTTP(S)_PROXY set for yt-dlp must not carry a loopback request away.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=TIMEOUT_SECONDS) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        return f"{url} answered {error.code}"
    except (urllib.error.URLError, OSError) as error:
        return f"{url}: {getattr(error, 'reason', error)}"
    return None if status == HTTP_OK else f"{url} answered {status}"


def main() -> int:
    url = healthz_url(dict(os.environ))
    if url is None:
        print("unhealthy: VIDRELAY_METRICS_PORT is 0 or unset, so /healthz is off", file=sys.stderr)
        return 1
    problem = check(url)
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
