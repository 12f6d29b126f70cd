from __future__ import annotations

import pytest

from core.texts.captions import caption_for
from core.texts.phrase import Phrase
from core.texts.reasons import timed_out, too_large
from ports.media import Progress, Stage, VideoInfo
from tests.support.languages import words

EN, ES, RU = words("en"), words("es"), words("ru")


def info(**overrides: object) -> VideoInfo:
    fields: dict[str, object] = {
        "url": "https://example.com/v",
        "webpage_url": "https://example.com/v",
        "extractor": "generic",
        "id": "v1",
        "title": "A <b>bold</b> & title",
        "format_id": "mp4",
        "ext": "mp4",
        "info_json": "{}",
        "duration": 12.0,
        "filesize": 2_500_000,
        "width": 640,
        "height": 360,
        "vcodec": "avc1.64001e",
        "acodec": "mp4a.40.2",
        "tbr": 1600.0,
    }
    fields.update(overrides)
    return VideoInfo(**fields)  # type: ignore[arg-type]


def test_retry_line_names_the_next_attempt() -> None:
    assert EN.retrying(2, 3) == "\n⚠️ <b>Download failed</b>, retrying (attempt 2 of 3)..."
    assert ES.retrying(2, 3) == "\n⚠️ <b>La descarga falló</b>, lo intento de nuevo (intento 2 de 3)..."


def test_failure_line_escapes_the_reason() -> None:
    assert EN.failed("HTTP <Error> & co") == "\n💥 <b>Download failed</b>: HTTP &lt;Error&gt; &amp; co"


def test_a_reason_decided_in_english_is_said_in_the_readers_language() -> None:
    reason = too_large(73_400_000)
    assert reason == "😞 Video too large (73 MB)"  # the log's and the dead-letter row's words
    assert RU.reason(reason) == "😞 Видео слишком большое (73 МБ)"
    assert ES.failed(timed_out(1.5)) == "\n💥 <b>La descarga falló</b>: Se agotó el tiempo tras 1,5 segundos"
    assert ES.reason("HTTP Error 503") == "HTTP Error 503"  # yt-dlp's words, as it said them


def test_a_phrase_inside_a_phrase_is_said_in_the_same_language() -> None:
    private = Phrase("the link leads to a private address ({address})", address="10.0.0.1")
    refused = Phrase("refused: {why}", why=private)
    assert refused == "refused: the link leads to a private address (10.0.0.1)"
    assert ES.reason(refused) == "rechazado: el enlace lleva a una dirección privada (10.0.0.1)"


def test_info_block_escapes_outside_text_and_lists_the_facts() -> None:
    block = EN.video_info(info())
    assert "A &lt;b&gt;bold&lt;/b&gt; &amp; title" in block
    assert "<b>Size:</b> 2.50 MB" in block
    assert "<b>Resolution:</b> 640x360" in block
    assert "avc1.64001e @ 1,600 kbps" in block  # grouped as English groups numbers
    assert "<b>bold</b>" not in block


def test_sizes_and_numbers_are_written_as_the_language_writes_them() -> None:
    assert "<b>Tamaño:</b> 2,50 MB" in ES.video_info(info())
    assert "<b>Размер:</b> 2,50 МБ" in RU.video_info(info())
    assert RU.uploading(1_234_500_000) == "\n🚀 <b>Загружаю (1\xa0234,50 МБ)...</b>"


def test_too_large_and_long_video_prompt() -> None:
    assert EN.reason(too_large(73_400_000)) == "😞 Video too large (73 MB)"
    assert EN.long_video_prompt(25 * 60) == "This video is pretty long (25m), download it anyway?"
    assert EN.long_video_prompt(3900) == "This video is pretty long (1h 5m), download it anyway?"
    assert (
        ES.long_video_prompt(3900) == "Este vídeo es bastante largo (1 h 5 min). ¿Lo descargo de todos modos?"
    )
    assert RU.long_video_prompt(3900) == "Это видео довольно длинное (1 ч 5 мин). Всё равно скачать?"


@pytest.mark.parametrize(
    ("percent", "bar"),
    [(None, "[░░░░░░░░░░] 0.0%"), (55.0, "[██████░░░░] 55.0%"), (140.0, "[██████████] 100.0%")],
)
def test_progress_bar_is_clamped(percent: float | None, bar: str) -> None:
    assert EN.progress_bar(percent) == bar


def test_progress_line_has_speed_and_eta() -> None:
    line = EN.progress_line(Progress(percent=50.0, speed_bytes=1_500_000, eta_seconds=75))
    assert line == "[█████░░░░░] 50.0% · 1.50 MB/s · ETA 1:15"
    line = RU.progress_line(Progress(percent=50.0, speed_bytes=1_500_000, eta_seconds=75))
    assert line == "[█████░░░░░] 50,0% · 1,50 МБ/с · осталось 1:15"


def test_caption_prefers_the_title_unless_it_is_only_the_id() -> None:
    assert caption_for(info(title="Nice clip")) == "Nice clip"
    assert caption_for(info(title="v1", playlist_title="The post")) == "The post"
    assert caption_for(info(title="v1.mp4", description="desc")) == "desc"


def test_the_stages_after_the_download_name_themselves() -> None:
    limit = 50 * 1024 * 1024
    assert EN.stage_line(Progress(0.0, None, None, stage=Stage.CONVERT), limit) == "\n🎞 <b>Converting…</b>"
    assert EN.stage_line(Progress(0.0, None, None, stage=Stage.COMPRESS), limit) == (
        "\n📦 <b>Compressing to fit 50 MB…</b>"
    )
    assert EN.stage_line(Progress(10.0, 1.0, 1.0), limit) is None
