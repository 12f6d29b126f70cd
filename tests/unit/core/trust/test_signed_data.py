"""The pure half of "every input bound to where it came from": signed button data and inline
result ids verify only for what they were made for, and verifying is total over any text."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.trust.callback_data import MAX_CALLBACK_BYTES, ButtonRef, sign_button, verify_button
from core.trust.inline_offers import OFFER_TTL_SECONDS, Offer, chosen_offer, offer_id
from core.trust.mac import derive_key

KEY = derive_key(b"s" * 32, "callback_data")
OTHER_KEY = derive_key(b"t" * 32, "callback_data")
CHAT, MESSAGE = -1001234567890, 42
REF = ButtonRef("confirm", "0123456789abcdef")
NOW = 1_700_000_000.0
URL = "https://videos.example/watch/1"


def test_signed_data_names_the_action_and_object_and_fits_telegrams_limit() -> None:
    longest = ButtonRef("a" * 16, "Z" * 24)
    data = sign_button(KEY, longest, -(2**63) + 1, 2**63 - 1)

    assert len(data.encode()) <= MAX_CALLBACK_BYTES
    assert verify_button(KEY, data, -(2**63) + 1, 2**63 - 1) == longest
    assert sign_button(KEY, REF, CHAT, MESSAGE).startswith("confirm:0123456789abcdef:")
    assert verify_button(KEY, sign_button(KEY, REF, CHAT, MESSAGE), CHAT, MESSAGE) == REF


@pytest.mark.parametrize(
    ("chat", "message", "key"),
    [
        (CHAT + 1, MESSAGE, KEY),  # the same data pressed in another chat
        (CHAT, MESSAGE + 1, KEY),  # under another message of the same chat
        (-CHAT, MESSAGE, KEY),
        (CHAT, MESSAGE, OTHER_KEY),  # another install's signature
        (CHAT, MESSAGE, derive_key(b"s" * 32, "inline_result")),  # a key made for another purpose
    ],
)
def test_data_verifies_only_where_and_by_whom_it_was_signed(chat: int, message: int, key: bytes) -> None:
    assert verify_button(key, sign_button(KEY, REF, CHAT, MESSAGE), chat, message) is None


def test_any_change_to_the_data_breaks_it() -> None:
    data = sign_button(KEY, REF, CHAT, MESSAGE)
    action, object_id, mac = data.split(":")
    forged = [
        f"cancel:{object_id}:{mac}",  # the other button's action, this one's tag
        f"{action}:0123456789abcdee:{mac}",  # another object
        f"{action}:{object_id}:{mac[:-1]}{'A' if mac[-1] != 'A' else 'B'}",  # a tampered tag
        f"{action}:{object_id}:{mac}=",
        f"{action}:{object_id}:{mac}\n",
        f"{action}:{object_id}",
        f"{action}:{object_id}:{base64.urlsafe_b64encode(bytes(12)).decode()}",
        data.upper(),
        "",
    ]
    assert [verify_button(KEY, f, CHAT, MESSAGE) for f in forged] == [None] * len(forged)


@settings(max_examples=300, derandomize=True, database=None)
@given(st.text(max_size=80), st.integers(), st.integers())
def test_verifying_is_total_over_any_text_and_ids(data: str, chat: int, message: int) -> None:
    assert verify_button(KEY, data, chat, message) is None


def test_an_unsignable_button_is_a_bug_not_data() -> None:
    with pytest.raises(ValueError, match="signable"):
        ButtonRef("confirm", "has:colon")
    with pytest.raises(ValueError, match="signable"):
        ButtonRef("Confirm", "abc")


def test_an_offered_result_is_chosen_by_that_user_for_that_link_within_its_lifetime() -> None:
    offer = Offer("full", 1337, URL)
    result_id = offer_id(KEY, offer, NOW)

    assert len(result_id.encode()) <= 64
    assert chosen_offer(KEY, result_id, 1337, URL, NOW + 5) == offer
    assert chosen_offer(KEY, result_id, 1337, URL, NOW + OFFER_TTL_SECONDS) == offer
    assert chosen_offer(KEY, result_id, 1337, URL, NOW + OFFER_TTL_SECONDS + 1) is None
    assert chosen_offer(KEY, result_id, 1338, URL, NOW + 5) is None  # offered to somebody else
    assert chosen_offer(KEY, result_id, 1337, URL + "2", NOW + 5) is None  # for another link
    assert chosen_offer(OTHER_KEY, result_id, 1337, URL, NOW + 5) is None
    assert chosen_offer(KEY, "full", 1337, URL, NOW) is None  # the bare variant ids of old


def test_an_offer_ids_label_and_issue_time_cannot_be_changed() -> None:
    label, issued, mac = offer_id(KEY, Offer("no_source", 7, URL), NOW).split(":")

    assert chosen_offer(KEY, f"full:{issued}:{mac}", 7, URL, NOW) is None
    later = base_36(int(NOW) + 600)
    assert chosen_offer(KEY, f"{label}:{later}:{mac}", 7, URL, NOW + 600) is None


@settings(max_examples=300, derandomize=True, database=None)
@given(st.text(max_size=80), st.integers(), st.text(max_size=40))
def test_choosing_is_total_over_any_text(result_id: str, user_id: int, url: str) -> None:
    assert chosen_offer(KEY, result_id, user_id, url, NOW) is None


def test_links_with_lone_surrogates_are_signed_like_any_other() -> None:
    url = "https://videos.example/\udcff"
    result_id = offer_id(KEY, Offer("full", 7, url), NOW)
    assert chosen_offer(KEY, result_id, 7, url, NOW) == Offer("full", 7, url)
    assert chosen_offer(KEY, result_id, 7, "https://videos.example/\udcfe", NOW) is None


def base_36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while n:
        n, rest = divmod(n, 36)
        text = digits[rest] + text
    return text or "0"
