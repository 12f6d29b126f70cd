"""The image's HEALTHCHECK script against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.deploy_files import ROOT

SCRIPT = ROOT / "docker" / "healthcheck.py"


class Healthz(ThreadingHTTPServer):
    status = 200
    paths: list[str]


class Handler(BaseHTTPRequestHandler):
    server: Healthz

    def do_GET(self) -> None:
        self.server.paths.append(self.path)
        self.send_response(self.server.status)
        self.end_headers()
        self.wfile.write(b"ok\n")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def healthz() -> Iterator[Healthz]:
    server = Healthz(("127.0.0.1", 0), Handler)
    server.paths = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def probe(port: int | str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    return subprocess.run(
        [sys.executable, str(SCRIPT)],
        env={**clean, "VIDRELAY_METRICS_PORT": str(port), **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_healthy_when_healthz_answers_200(healthz: Healthz) -> None:
    result = probe(healthz.server_address[1])
    assert (result.returncode, result.stderr) == (0, "")
    assert healthz.paths == ["/healthz"]


def test_unhealthy_with_one_line_when_healthz_answers_503(healthz: Healthz) -> None:
    healthz.status = 503
    result = probe(healthz.server_address[1])
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0
    assert "503" in result.stderr


def test_a_proxy_meant_for_downloads_is_not_used_for_the_loopback_probe(healthz: Healthz) -> None:
    with socket.socket() as dead:
        dead.bind(("127.0.0.1", 0))  # bound, never listening: a proxy there refuses every connection
        proxy = f"http://127.0.0.1:{dead.getsockname()[1]}"
        result = probe(healthz.server_address[1], HTTP_PROXY=proxy, http_proxy=proxy)
    assert result.returncode == 0, result.stderr
    assert healthz.paths == ["/healthz"]


def test_unhealthy_when_nothing_listens() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        result = probe(closed.getsockname()[1])
    assert result.returncode == 1
    assert "refused" in result.stderr.lower()


@pytest.mark.parametrize("port", ["0", ""])
def test_unhealthy_and_says_why_when_the_metrics_server_is_off(port: str) -> None:
    result = probe(port)
    assert result.returncode == 1
    assert "VIDRELAY_METRICS_PORT" in result.stderr
