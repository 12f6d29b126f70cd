"""Which files every Telegram client plays inline, and what to do with one that is not such a file.

H.264 in 8-bit 4:2:0 with AAC or MP3 sound, in an MP4: the one combination Telegram's apps play on
every platform (VP9, AV1, HEVC or 10-bit H.264 play on some and show a black box or a file on the
others). A file that already is one is sent byte for byte; streams that are right are copied, not
re-encoded; only what is wrong is encoded.
"""

from __future__ import annotations

from ports.media import MediaProbe
from ports.transcoder import StreamAction, TranscodePlan

PLAYABLE_VIDEO_CODECS = frozenset({"h264"})
PLAYABLE_PIX_FMTS = frozenset({"yuv420p", "yuvj420p"})
PLAYABLE_AUDIO_CODECS = frozenset({"aac", "mp3"})
MAX_BIT_DEPTH = 8
CONVERT_AUDIO_KBPS = 128


def video_plays_everywhere(probe: MediaProbe) -> bool:
    return (
        probe.video_codec in PLAYABLE_VIDEO_CODECS
        and probe.pix_fmt in PLAYABLE_PIX_FMTS
        and (probe.bit_depth is None or probe.bit_depth <= MAX_BIT_DEPTH)
    )


def audio_plays_everywhere(probe: MediaProbe) -> bool:
    return probe.audio_codec is None or probe.audio_codec in PLAYABLE_AUDIO_CODECS


def is_mp4(probe: MediaProbe) -> bool:
    return probe.container is not None and "mp4" in probe.container.split(",")


def playback_plan(probe: MediaProbe | None) -> TranscodePlan | None:
    """None: send the file as it is (it plays everywhere, or it is not a video we can judge)."""
    if probe is None or probe.video_codec is None:
        return None
    video_ok, audio_ok = video_plays_everywhere(probe), audio_plays_everywhere(probe)
    if video_ok and audio_ok and is_mp4(probe):
        return None
    return TranscodePlan(
        video=StreamAction.COPY if video_ok else StreamAction.ENCODE,
        audio=_audio_action(probe, audio_ok),
        audio_kbps=CONVERT_AUDIO_KBPS,
    )


def _audio_action(probe: MediaProbe, audio_ok: bool) -> StreamAction:
    if probe.audio_codec is None:
        return StreamAction.DROP
    return StreamAction.COPY if audio_ok else StreamAction.ENCODE
