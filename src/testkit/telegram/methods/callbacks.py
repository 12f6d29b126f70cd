"""answerCallbackQuery: once per query, the way Telegram takes an answer only once."""

from __future__ import annotations

import time
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import query_too_old
from testkit.telegram.records import CallbackAnswer
from testkit.telegram.state import TelegramState


async def answer_callback_query(state: TelegramState, call: Call) -> Any:
    params = call.params
    query_id = params.text("callback_query_id") or ""
    if query_id not in state.callback_queries:
        raise query_too_old()
    del state.callback_queries[query_id]
    answer = CallbackAnswer(query_id, params.text("text"), params.flag("show_alert"), time.monotonic())
    state.journal.callback_answers.append(answer)
    return True


METHODS: dict[str, Method] = {"answerCallbackQuery": answer_callback_query}
