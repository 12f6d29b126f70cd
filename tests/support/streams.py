"""HLS and DASH streams made by ffmpeg for the tests, and served file by file on the video site.

`make_hls` writes a master playlist with one variant per (height, kbps) pair, each a media
playlist of MPEG-TS segments with its own audio; `make_dash` writes one MPD with the video
representations in one adaptation set and a separate audio track in another. Both are cached by
a hash of their command line. `serve_folder` puts every file of a folder on the site under a
prefix, so the site's request records tell which playlist and which segment was fetched.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from testkit.video_site import Body, VideoServer

CONTENT_TYPES = {
    ".m3u8": "application/vnd.apple.mpegurl",
    ".ts": "video/mp2t",
    ".mpd": "application/dash+xml",
    ".m4s": "video/iso.segment",
}


@dataclass(frozen=True, slots=True)
class Variant:
    height: int
    kbps: int


def _picture(seconds: float, variants: tuple[Variant, ...]) -> list[str]:
    split = "".join(f"[v{i}]" for i in range(len(variants)))
    scales = ";".join(f"[v{i}]scale=-2:{v.height}[s{i}]" for i, v in enumerate(variants))
    return [
        *("-nostdin", "-v", "error", "-y"),
        *("-f", "lavfi", "-i", "testsrc=size=320x240:rate=10"),
        *("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050"),
        *("-t", f"{seconds:g}", "-filter_complex", f"[0:v]split={len(variants)}{split};{scales}"),
    ]


def _encoding(variants: tuple[Variant, ...], audio_maps: int) -> list[str]:
    args = [arg for i in range(len(variants)) for arg in ("-map", f"[s{i}]")]
    args += [arg for _ in range(audio_maps) for arg in ("-map", "1:a")]
    args += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "10"]
    args += [arg for i, v in enumerate(variants) for arg in (f"-b:v:{i}", f"{v.kbps}k")]
    return [*args, "-c:a", "aac", "-b:a", "32k"]


def hls_args(out: Path, variants: tuple[Variant, ...], seconds: float) -> list[str]:
    stream_map = " ".join(f"v:{i},a:{i}" for i in range(len(variants)))
    return [
        *_picture(seconds, variants),
        *_encoding(variants, audio_maps=len(variants)),
        *("-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"),
        *("-hls_segment_filename", str(out / "v%v_%03d.ts"), "-master_pl_name", "master.m3u8"),
        *("-var_stream_map", stream_map, str(out / "v%v.m3u8")),
    ]


def dash_args(out: Path, variants: tuple[Variant, ...], seconds: float) -> list[str]:
    return [
        *_picture(seconds, variants),
        *_encoding(variants, audio_maps=1),
        *("-f", "dash", "-seg_duration", "1", "-use_template", "1", "-use_timeline", "0"),
        *("-adaptation_sets", "id=0,streams=v id=1,streams=a", str(out / "manifest.mpd")),
    ]


async def make_hls(folder: Path, variants: tuple[Variant, ...], seconds: float = 3.0) -> Path:
    """A folder holding master.m3u8, v<i>.m3u8 and v<i>_<n>.ts (variant i as given)."""
    return await _made(folder, "hls", lambda out: hls_args(out, variants, seconds))


async def make_dash(folder: Path, variants: tuple[Variant, ...], seconds: float = 3.0) -> Path:
    """A folder holding manifest.mpd, init-stream<i>.m4s and chunk-stream<i>-<n>.m4s; the audio is
    the stream after the videos."""
    return await _made(folder, "dash", lambda out: dash_args(out, variants, seconds))


async def _made(folder: Path, kind: str, args_for: Callable[[Path], list[str]]) -> Path:
    digest = hashlib.sha256(repr(args_for(Path("out"))).encode()).hexdigest()[:12]
    target = folder / f"{kind}-{digest}"
    if await asyncio.to_thread(target.is_dir):
        return target
    work = folder / f".{kind}-{digest}.{os.getpid()}"
    await asyncio.to_thread(work.mkdir, parents=True, exist_ok=True)
    proc = await asyncio.create_subprocess_exec("ffmpeg", *args_for(work), stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(proc.communicate(), 120)
    if proc.returncode != 0:
        await asyncio.to_thread(shutil.rmtree, work, True)
        raise RuntimeError(f"ffmpeg could not make the {kind} stream: {err.decode(errors='replace')}")
    try:
        await asyncio.to_thread(work.rename, target)
    except OSError:  # another run made it first
        await asyncio.to_thread(shutil.rmtree, work, True)
    return target


def serve_folder(
    server: VideoServer, prefix: str, folder: Path, replace: dict[str, bytes] | None = None
) -> None:
    """Every file of `folder` at `<prefix>/<name>`; `replace` swaps a file's bytes (a lying manifest)."""
    for path in sorted(folder.iterdir()):
        data = (replace or {}).get(path.name, path.read_bytes())
        content_type = CONTENT_TYPES.get(path.suffix, "application/octet-stream")
        server.set_route(f"{prefix}/{path.name}", Body(data, content_type))
