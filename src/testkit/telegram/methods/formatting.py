"""A sent message's text and how it shows: parse mode or entities, length limits, send options."""

from __future__ import annotations

from typing import Any

from testkit.telegram.errors import bad_request
from testkit.telegram.html import parse_html
from testkit.telegram.limits import MAX_CAPTION_LENGTH, MAX_MESSAGE_LENGTH
from testkit.telegram.messages import StoredMessage
from testkit.telegram.params import Params


def formatted(params: Params, text_key: str, entities_key: str) -> tuple[str, list[dict[str, Any]]]:
    text = params.text(text_key) or ""
    mode = (params.text("parse_mode") or "").lower()
    if mode == "html":
        return parse_html(text)
    if mode in {"markdown", "markdownv2"}:
        return text, []  # Markdown is not used by vidrelay: taken as plain text
    entities = params.decoded(entities_key, "entities")
    return text, list(entities) if isinstance(entities, list) else []


def message_text(params: Params) -> tuple[str, list[dict[str, Any]]]:
    text, entities = formatted(params, "text", "entities")
    if not text.strip():
        raise bad_request("message text is empty")
    if len(text) > MAX_MESSAGE_LENGTH:
        raise bad_request("message is too long")
    return text, entities


def caption(params: Params) -> tuple[str | None, list[dict[str, Any]]]:
    if not params.has("caption"):
        return None, []
    text, entities = formatted(params, "caption", "caption_entities")
    if len(text) > MAX_CAPTION_LENGTH:
        raise bad_request("message caption is too long")
    return text, entities


def apply_send_options(message: StoredMessage, params: Params) -> None:
    message.silent = params.flag("disable_notification")
    message.parse_mode = params.text("parse_mode")
    preview = params.decoded("link_preview_options", "link preview options")
    message.link_preview_disabled = params.flag("disable_web_page_preview") or (
        isinstance(preview, dict) and bool(preview.get("is_disabled"))
    )
