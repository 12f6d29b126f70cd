"""A local package index of fake yt-dlp releases, and what the updater's tests read back from
the data folder and pip's log."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from adapters.ytdlp.locator import YtDlpLocator
from adapters.ytdlp.updater import YtDlpUpdater

V1, V2, V3 = "2099.1.1", "2099.2.1", "2099.3.1"


WAIT = 60.0
"""Upper bound for a child process to reach a state the test waits for; hit only when broken."""


MAIN = """\
import os
import sys
import time

from yt_dlp.version import __version__

args = sys.argv[1:]
if args == ["--version"]:
    print(__version__)
    sys.exit(0)
if args[:1] == ["--hold"]:
    ready, release, out = args[1:4]
    open(ready, "w").close()
    deadline = time.monotonic() + 60
    while not os.path.exists(release):
        if time.monotonic() > deadline:
            sys.exit(3)
        time.sleep(0.02)
    from yt_dlp import late  # imported only now, from the install this process started with

    with open(out, "w") as f:
        f.write(late.VERSION)
    sys.exit(0)
sys.exit(2)
"""


PIP_WRAPPER = """\
import os
import sys

with open(os.environ["PIP_CALLS_LOG"], "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
os.execv(sys.executable, [sys.executable, "-m", "pip", *sys.argv[1:]])
"""


def yt_dlp_files(printed: str, broken: str | None = None, main: str = MAIN) -> dict[str, str]:
    files = {
        "yt_dlp/__init__.py": "",
        "yt_dlp/__main__.py": main,
        "yt_dlp/version.py": f"__version__ = {printed!r}\n",
        "yt_dlp/late.py": f"VERSION = {printed!r}\n",
    }
    if broken == "exit":
        files["yt_dlp/__main__.py"] = "import sys\nsys.stderr.write('broken build\\n')\nsys.exit(1)\n"
    elif broken == "import":
        files["yt_dlp/__init__.py"] = "raise ImportError('broken build')\n"
    elif broken == "wrong-version":
        files["yt_dlp/version.py"] = "__version__ = '1999.01.01'\n"
    return files


def publish(
    index: Path,
    version: str,
    printed: str | None = None,
    broken: str | None = None,
    ejs: str | None = None,
    main: str = MAIN,
) -> None:
    """A wheel of the fake yt-dlp, by hand: dist-info METADATA, WHEEL and a RECORD with hashes.
    `ejs`: like the real releases, its `default` extra pins the yt-dlp-ejs of that version;
    `main`: its `python -m yt_dlp` (MAIN: a test script of the updater's tests)."""
    files = yt_dlp_files(printed or _yt_dlp_style(version), broken, main)
    extra = f"Provides-Extra: default\nRequires-Dist: yt-dlp-ejs=={ejs}; extra == 'default'\n" if ejs else ""
    _wheel(index, "yt-dlp", version, files, extra)


def publish_ejs(index: Path, version: str) -> None:
    _wheel(index, "yt-dlp-ejs", version, {"yt_dlp_ejs/__init__.py": f"version = {version!r}\n"})


def _wheel(index: Path, name: str, version: str, files: dict[str, str], metadata: str = "") -> None:
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    files[f"{dist_info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata}"
    files[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: vidrelay-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = [f"{path},sha256={_digest(text)},{len(text.encode())}" for path, text in files.items()]
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    index.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(index / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


def _digest(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()


def _yt_dlp_style(version: str) -> str:
    """yt-dlp prints zero-padded dates (2099.01.01) where pip normalizes (2099.1.1)."""
    year, month, day, *rest = version.split(".")
    return ".".join([year, month.zfill(2), day.zfill(2), *rest])


MakeUpdater = Callable[..., YtDlpUpdater]


def pip_calls(log: Path) -> list[str]:
    return log.read_text().splitlines()


def installs(log: Path) -> list[str]:
    return [call for call in pip_calls(log) if "--target" in call]


def selected(data: Path) -> str:
    link = data / "ytdlp" / "current"
    assert link.is_symlink()
    return os.readlink(link)


def versions(data: Path) -> set[str]:
    return {p.name for p in (data / "ytdlp" / "versions").iterdir()}


def hidden_leftovers(data: Path) -> list[str]:
    root = data / "ytdlp"
    return [p.name for p in [*root.iterdir(), *(root / "versions").iterdir()] if p.name.startswith(".")]


async def run_yt_dlp(data: Path, *args: str) -> tuple[int, str]:
    """Spawn yt-dlp the way every run does: the locator resolves `current` once, at spawn time."""
    command = YtDlpLocator(data).command()
    proc = await asyncio.create_subprocess_exec(
        *command.argv,
        *args,
        env=dict(command.env),
        cwd=data.parent,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), WAIT)
    assert proc.returncode is not None
    return proc.returncode, out.decode().strip()


def wait_for_file(path: Path) -> None:
    deadline = time.monotonic() + WAIT
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


HANGING_INSTALL = """\
import os
import sys
import time

args = sys.argv[1:]
if "--target" in args:
    target = args[args.index("--target") + 1]
    os.makedirs(os.path.join(target, "yt_dlp"))
    with open(os.environ["PIP_HANG_PID"] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(os.environ["PIP_HANG_PID"] + ".tmp", os.environ["PIP_HANG_PID"])
    time.sleep(60)
os.execv(sys.executable, [sys.executable, "-m", "pip", *args])
"""
