"""The fake Bot API's sendMediaGroup and sendDocument, spoken to over HTTP."""

from __future__ import annotations

import json

import aiohttp

from testkit.telegram import FakeBotApi, FloodLimits
from tests.support.people import ALICE, GROUP, PRIVATE
from tests.support.raw_bot_api import call, error

MB = 1024 * 1024


def album_form(chat_id: int, files: dict[str, bytes], media: list[dict[str, object]]) -> aiohttp.FormData:
    form = aiohttp.FormData({"chat_id": str(chat_id), "media": json.dumps(media)})
    for name, data in files.items():
        form.add_field(name, data, filename=f"{name}.mp4")
    return form


def video(name: str, **extra: object) -> dict[str, object]:
    return {"type": "video", "media": f"attach://{name}", **extra}


async def send_album(
    http: aiohttp.ClientSession, api: FakeBotApi, files: dict[str, bytes], **form: object
) -> tuple[int, dict[str, object]]:
    media = [video(name, caption=f"Part {i}/{len(files)}") for i, name in enumerate(files, 1)]
    return await call(http, api, "sendMediaGroup", data=album_form(PRIVATE.id, files, media), **form)


async def test_an_album_posts_one_message_per_item_in_one_group_replying_to_the_link(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    link = api.send_text(PRIVATE, ALICE, "https://example.com/long")
    media = [
        video("a", caption="Part 1/2", duration=30, width=160, height=120),
        video("b", caption="Part 2/2"),
    ]
    form = album_form(PRIVATE.id, {"a": b"first part", "b": b"second part"}, media)
    form.add_field("reply_parameters", json.dumps({"message_id": link}))

    status, sent = await call(http, api, "sendMediaGroup", data=form)

    assert status == 200
    messages = sent["result"]
    assert [m["caption"] for m in messages] == ["Part 1/2", "Part 2/2"]
    assert len({m["media_group_id"] for m in messages}) == 1
    assert [m["reply_to_message"]["message_id"] for m in messages] == [link, link]
    [album] = api.albums(PRIVATE.id)
    assert [(v.caption, v.source, v.size) for v in album] == [
        ("Part 1/2", "upload", 10),
        ("Part 2/2", "upload", 11),
    ]
    assert (album[0].duration, album[0].width) == (30, 160)
    assert api.videos(PRIVATE.id) == album


async def test_an_album_sent_again_by_file_ids_is_the_same_files(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    _, first = await send_album(http, api, {"a": b"one", "b": b"two"})
    ids = [m["video"]["file_id"] for m in first["result"]]  # type: ignore[index]

    _, again = await call(
        http,
        api,
        "sendMediaGroup",
        json={"chat_id": GROUP.id, "media": [{"type": "video", "media": i} for i in ids]},
    )

    assert [m["video"]["file_id"] for m in again["result"]] == ids  # type: ignore[index]
    assert [v.source for v in api.albums(GROUP.id)[0]] == ["file_id", "file_id"]


async def test_one_item_is_a_message_outside_any_album(api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    _, sent = await send_album(http, api, {"a": b"alone"})

    [message] = sent["result"]  # type: ignore[misc]
    assert "media_group_id" not in message
    assert api.albums() == []
    assert len(api.videos(PRIVATE.id)) == 1


async def test_bad_albums_are_refused_in_telegrams_words_and_post_nothing(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    eleven = {f"p{i}": f"part {i}".encode() for i in range(11)}
    document = {"type": "document", "media": "attach://b"}
    cases = [
        (album_form(PRIVATE.id, {}, []), "Bad Request: there are no messages to send"),
        (album_form(PRIVATE.id, eleven, [video(n) for n in eleven]), "too many messages to send as an album"),
        (
            album_form(PRIVATE.id, {"a": b"a"}, [video("a"), video("gone")]),
            "can't parse InputMedia: media not found",
        ),
        (
            album_form(PRIVATE.id, {"a": b"a", "b": b"b"}, [video("a"), document]),
            "Bad Request: document can't be mixed with other media types",
        ),
        (
            album_form(PRIVATE.id, {"a": b"a"}, [{"type": "sticker", "media": "attach://a"}]),
            'Bad Request: can\'t parse InputMedia: type "sticker" is unsupported',
        ),
    ]
    for form, wording in cases:
        _, refused = await call(http, api, "sendMediaGroup", data=form)
        assert error(refused)[0] == 400
        assert error(refused)[1].endswith(wording), refused
    _, not_json = await call(http, api, "sendMediaGroup", data={"chat_id": PRIVATE.id, "media": "[{"})

    assert error(not_json) == (400, "Bad Request: can't parse media JSON object")
    assert api.videos() == []
    assert api.messages(PRIVATE.id) == []


async def test_each_file_of_an_album_meets_the_limit_on_its_own(http: aiohttp.ClientSession) -> None:
    async with FakeBotApi(upload_limit=MB) as api:
        api.add_chat(PRIVATE)
        _, under = await send_album(http, api, {"a": b"a" * (MB - 1), "b": b"b" * (MB - 1)})
        status, over = await send_album(http, api, {"a": b"a" * 10, "b": b"b" * (MB + 1)})

        assert len(under["result"]) == 2  # type: ignore[arg-type]
        assert (status, error(over)) == (413, (413, "Request Entity Too Large"))
        assert len(api.videos()) == 2


async def test_an_album_counts_one_message_per_item_against_the_flood_limits(
    http: aiohttp.ClientSession,
) -> None:
    async with FakeBotApi(flood_limits=FloodLimits(chat_burst=4)) as api:
        api.add_chat(PRIVATE)
        _, four = await send_album(http, api, {f"p{i}": f"{i}".encode() for i in range(4)})
        status, one_more = await call(http, api, "sendMessage", json={"chat_id": PRIVATE.id, "text": "hi"})

        assert len(four["result"]) == 4  # type: ignore[arg-type]
        assert status == 429
        assert error(one_more)[1].startswith("Too Many Requests: retry after")


async def test_a_document_keeps_its_bytes_and_name_and_its_file_id_is_only_a_documents(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    form = aiohttp.FormData({"chat_id": str(PRIVATE.id), "disable_content_type_detection": "true"})
    form.add_field("document", b"mp4 bytes", filename="clip.mp4")
    _, sent = await call(http, api, "sendDocument", data=form)
    document = sent["result"]["document"]
    _, as_video = await call(
        http, api, "sendVideo", json={"chat_id": PRIVATE.id, "video": document["file_id"]}
    )
    _, again = await call(
        http, api, "sendDocument", json={"chat_id": GROUP.id, "document": document["file_id"]}
    )
    _, missing = await call(http, api, "sendDocument", json={"chat_id": GROUP.id})

    assert (document["file_name"], document["mime_type"], document["file_size"]) == (
        "clip.mp4",
        "video/mp4",
        9,
    )
    assert "video" not in sent["result"]
    assert error(as_video) == (400, "Bad Request: can't use file of type Document as Video")
    assert again["result"]["document"]["file_id"] == document["file_id"]
    assert error(missing) == (400, "Bad Request: there is no document in the request")
    first, second = api.documents()
    assert (first.source, first.content_type_detection, first.file.kind) == ("upload", False, "document")
    assert (second.source, second.content_type_detection) == ("file_id", True)


async def test_a_videos_file_id_is_not_a_document(api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    _, sent = await send_album(http, api, {"a": b"a video"})
    video_id = sent["result"][0]["video"]["file_id"]  # type: ignore[index]

    _, refused = await call(http, api, "sendDocument", json={"chat_id": PRIVATE.id, "document": video_id})

    assert error(refused) == (400, "Bad Request: can't use file of type Video as Document")
    assert api.documents() == []
