"""answerInlineQuery: the results a user picks from under `@bot query`."""

from __future__ import annotations

import time
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request, query_too_old, wrong_file, wrong_file_type
from testkit.telegram.records import InlineAnswer
from testkit.telegram.state import TelegramState


async def answer_inline_query(state: TelegramState, call: Call) -> Any:
    params = call.params
    query_id = params.text("inline_query_id") or ""
    if query_id not in state.inline_queries:
        raise query_too_old()
    results = params.decoded("results", "results")
    if not isinstance(results, list):
        raise bad_request("can't parse inline query results JSON object")
    _check_results(state, results)
    del state.inline_queries[query_id]
    answer = InlineAnswer(
        query_id, results, params.integer("cache_time"), params.flag("is_personal"), time.monotonic()
    )
    state.journal.inline_answers.append(answer)
    return True


def _check_results(state: TelegramState, results: list[Any]) -> None:
    seen: set[str] = set()
    for result in results:
        if not isinstance(result, dict) or not result.get("id") or not result.get("type"):
            raise bad_request("RESULT_ID_INVALID")
        if str(result["id"]) in seen:
            raise bad_request("RESULT_ID_DUPLICATE")
        seen.add(str(result["id"]))
        for field, kind in _CACHED_FILE_FIELDS.items():
            if (file_id := result.get(field)) is not None:
                _check_file(state, str(file_id), kind)


_CACHED_FILE_FIELDS = {"video_file_id": "video", "audio_file_id": "audio"}


def _check_file(state: TelegramState, file_id: str, kind: str) -> None:
    record = state.files.get(file_id)
    if record is None:
        raise wrong_file()
    if record.kind != kind:
        raise wrong_file_type(record.kind, kind)


METHODS: dict[str, Method] = {"answerInlineQuery": answer_inline_query}
