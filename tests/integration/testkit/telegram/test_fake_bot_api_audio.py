"""The fake Bot API's sendAudio, audio media edits and inline text edits, spoken to over HTTP."""

from __future__ import annotations

import aiohttp

from testkit.telegram import FakeBotApi
from tests.support.people import ALICE, GROUP, PRIVATE
from tests.support.raw_bot_api import call, error

M4A = b"\x00\x00\x00\x20ftypM4A sound bytes"
MISMATCH = "Bad Request: can't use file of type Video as Audio"


def audio_form(data: bytes, filename: str, **fields: str) -> aiohttp.FormData:
    form = aiohttp.FormData({"chat_id": str(PRIVATE.id), **fields})
    form.add_field("audio", data, filename=filename)
    return form


async def send_video(http: aiohttp.ClientSession, api: FakeBotApi, data: bytes) -> str:
    form = aiohttp.FormData({"chat_id": str(GROUP.id)})
    form.add_field("video", data, filename="v.mp4")
    _, sent = await call(http, api, "sendVideo", data=form)
    file_id: str = sent["result"]["video"]["file_id"]
    return file_id


async def test_an_m4a_upload_is_an_audio_with_its_title_performer_and_duration(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    form = audio_form(M4A, "song.m4a", title="A song", performer="A band", duration="62")
    form.add_field("thumbnail", b"\xff\xd8\xff thumb", filename="t.jpg")

    _, sent = await call(http, api, "sendAudio", data=form)

    audio = sent["result"]["audio"]
    assert (audio["title"], audio["performer"], audio["duration"]) == ("A song", "A band", 62)
    assert (audio["mime_type"], audio["file_size"], audio["file_name"]) == ("audio/mp4", len(M4A), "song.m4a")
    assert audio["file_id"].startswith("CQAC")
    [record] = api.audios(PRIVATE.id)
    assert (record.source, record.file.kind, record.title, record.duration) == (
        "upload",
        "audio",
        "A song",
        62,
    )
    assert record.thumbnail is not None


async def test_the_same_bytes_get_the_same_file_id_and_it_sends_again(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    _, first = await call(http, api, "sendAudio", data=audio_form(M4A, "a.m4a"))
    _, again = await call(http, api, "sendAudio", data=audio_form(M4A, "b.m4a"))
    file_id = first["result"]["audio"]["file_id"]

    _, by_id = await call(http, api, "sendAudio", json={"chat_id": GROUP.id, "audio": file_id})

    assert again["result"]["audio"]["file_id"] == file_id
    assert by_id["result"]["audio"]["file_id"] == file_id
    assert [a.source for a in api.audios()] == ["upload", "upload", "file_id"]


async def test_a_file_telegram_does_not_play_arrives_as_a_document(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    _, sent = await call(http, api, "sendAudio", data=audio_form(b"\x1aE\xdf\xa3 webm", "sound.webm"))

    assert "audio" not in sent["result"]
    document = sent["result"]["document"]
    assert (document["file_name"], document["mime_type"]) == ("sound.webm", "video/webm")
    assert api.audios()[0].file.kind == "document"


async def test_a_videos_file_id_is_not_an_audio(api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    video_id = await send_video(http, api, b"video bytes")

    _, refused = await call(http, api, "sendAudio", json={"chat_id": PRIVATE.id, "audio": video_id})
    _, missing = await call(http, api, "sendAudio", json={"chat_id": PRIVATE.id})

    assert error(refused) == (400, MISMATCH)
    assert error(missing) == (400, "Bad Request: there is no audio in the request")
    assert api.audios() == []


async def test_the_same_bytes_as_a_video_and_as_an_audio_are_two_files(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    video_id = await send_video(http, api, M4A)
    _, sent = await call(http, api, "sendAudio", data=audio_form(M4A, "a.m4a"))

    assert sent["result"]["audio"]["file_id"] != video_id


async def test_an_inline_placeholder_shows_its_text_its_edits_and_then_an_audio(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    _, sent = await call(http, api, "sendAudio", data=audio_form(M4A, "a.m4a"))
    audio_id = sent["result"]["audio"]["file_id"]
    query_id = api.send_inline_query(ALICE, "example.com/v")
    placeholder = {
        "type": "article",
        "id": "p",
        "title": "Wait",
        "input_message_content": {"message_text": "⏳"},
    }
    await call(http, api, "answerInlineQuery", json={"inline_query_id": query_id, "results": [placeholder]})
    inline_id = api.choose_inline_result(ALICE, "p", query="example.com/v")

    _, edited = await call(
        http, api, "editMessageText", json={"inline_message_id": inline_id, "text": "💥 no"}
    )
    _, same = await call(http, api, "editMessageText", json={"inline_message_id": inline_id, "text": "💥 no"})
    _, swapped = await call(
        http,
        api,
        "editMessageMedia",
        json={"inline_message_id": inline_id, "media": {"type": "audio", "media": audio_id, "caption": "A"}},
    )
    _, no_text = await call(http, api, "editMessageText", json={"inline_message_id": inline_id, "text": "x"})

    assert edited == {"ok": True, "result": True}
    assert error(same)[1].startswith("Bad Request: message is not modified")
    assert swapped == {"ok": True, "result": True}
    assert error(no_text) == (400, "Bad Request: there is no text in the message to edit")
    shown = api.inline_message(inline_id)
    assert shown is not None
    assert shown.texts == ["⏳", "💥 no", "A"]
    assert shown.media is not None
    assert shown.media.file_id == audio_id


async def test_cached_audio_results_must_name_an_audio(api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    video_id = await send_video(http, api, b"video bytes")
    query_id = api.send_inline_query(ALICE, "example.com/v")
    result = {"type": "audio", "id": "a", "audio_file_id": video_id}

    _, refused = await call(
        http, api, "answerInlineQuery", json={"inline_query_id": query_id, "results": [result]}
    )

    assert error(refused) == (400, MISMATCH)
