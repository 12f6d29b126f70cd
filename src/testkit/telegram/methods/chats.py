"""Chats as the bot sees them: getChat, getChatMember, sendChatAction."""

from __future__ import annotations

from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request
from testkit.telegram.methods.addressing import chat_for
from testkit.telegram.people import User
from testkit.telegram.state import TelegramState


async def get_chat(state: TelegramState, call: Call) -> Any:
    chat = chat_for(state, call.params)
    return chat.to_api() | {"accent_color_id": 0, "max_reaction_count": 11}


_ADMIN_RIGHTS = (
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_promote_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
    "can_send_welcome_messages",
)

_RESTRICTIONS = (
    "can_send_messages",
    "can_send_audios",
    "can_send_documents",
    "can_send_photos",
    "can_send_videos",
    "can_send_video_notes",
    "can_send_voice_notes",
    "can_send_polls",
    "can_send_other_messages",
    "can_add_web_page_previews",
    "can_react_to_messages",
    "can_edit_tag",
    "can_change_info",
    "can_invite_users",
    "can_pin_messages",
    "can_manage_topics",
)


async def get_chat_member(state: TelegramState, call: Call) -> Any:
    chat = chat_for(state, call.params)
    user_id = call.params.integer("user_id")
    if user_id is None:
        raise bad_request("user_id is empty")
    user, status = state.members.get((chat.id, user_id), (User(user_id), "member"))
    member: dict[str, Any] = {"status": status, "user": user.to_api()}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member |= {"can_be_edited": False, "is_anonymous": False} | dict.fromkeys(_ADMIN_RIGHTS, True)
    elif status == "restricted":
        member |= {"is_member": True, "until_date": 0} | dict.fromkeys(_RESTRICTIONS, False)
    elif status == "kicked":
        member["until_date"] = 0
    return member


async def send_chat_action(state: TelegramState, call: Call) -> Any:
    chat = chat_for(state, call.params)
    action = call.params.text("action") or ""
    if not action:
        raise bad_request("action is empty")
    state.journal.chat_actions.append((chat.id, action))
    return True


METHODS: dict[str, Method] = {
    "getChat": get_chat,
    "getChatMember": get_chat_member,
    "sendChatAction": send_chat_action,
}
