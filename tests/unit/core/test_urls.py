from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.urls import Entity, extract_urls


def url_entity(text: str, needle: str) -> Entity:
    """An entity over `needle`, with offsets in UTF-16 code units as Telegram sends them."""
    start = text.index(needle)
    offset = len(text[:start].encode("utf-16-le")) // 2
    return Entity("url", offset, len(needle.encode("utf-16-le")) // 2)


def test_a_url_entity_is_extracted() -> None:
    text = "look https://example.com/v/1 now"
    assert extract_urls(text, [url_entity(text, "https://example.com/v/1")]) == ["https://example.com/v/1"]


def test_a_bare_host_gets_https() -> None:
    text = "example.com/x"
    assert extract_urls(text, [Entity("url", 0, 13)]) == ["https://example.com/x"]


def test_an_existing_scheme_is_kept_even_when_it_is_not_allowed() -> None:
    text = "ftp://example.com/x and HTTP://Example.com/y"
    entities = [url_entity(text, "ftp://example.com/x"), url_entity(text, "HTTP://Example.com/y")]
    assert extract_urls(text, entities) == ["ftp://example.com/x", "HTTP://Example.com/y"]


def test_offsets_count_utf16_code_units_after_emoji() -> None:
    text = "🎬🎬 https://example.com/after-emoji"
    entity = url_entity(text, "https://example.com/after-emoji")
    assert entity.offset == 5  # two emoji are two surrogate pairs, plus a space
    assert extract_urls(text, [entity]) == ["https://example.com/after-emoji"]


def test_text_links_and_other_entities_are_ignored() -> None:
    text = "click here #tag"
    entities = [Entity("text_link", 0, 10), Entity("hashtag", 11, 4)]
    assert extract_urls(text, entities) == []


def test_duplicates_are_dropped_in_order() -> None:
    text = "a.com/1 b.com/2 a.com/1"
    entities = [Entity("url", 0, 7), Entity("url", 8, 7), Entity("url", 16, 7)]
    assert extract_urls(text, entities) == ["https://a.com/1", "https://b.com/2"]


def test_entities_outside_the_text_are_ignored() -> None:
    text = "short.com"
    entities = [Entity("url", 5, 100), Entity("url", -1, 3), Entity("url", 0, 0), Entity("url", 99, 1)]
    assert extract_urls(text, entities) == []


def test_no_text_or_no_entities_gives_nothing() -> None:
    assert extract_urls(None, [Entity("url", 0, 3)]) == []
    assert extract_urls("a.com", None) == []


entities = st.lists(
    st.builds(
        Entity,
        type=st.sampled_from(["url", "text_link", "bold", "mention"]),
        offset=st.integers(min_value=-5, max_value=300),
        length=st.integers(min_value=-5, max_value=300),
    ),
    max_size=12,
)


@given(text=st.text(alphabet=st.characters(blacklist_categories=()), max_size=200), entities=entities)
def test_extraction_never_raises_and_yields_valid_unicode(text: str, entities: list[Entity]) -> None:
    urls = extract_urls(text, entities)
    assert len(urls) == len(set(urls))
    for url in urls:
        url.encode("utf-8")  # no lone surrogate survives
        assert "://" in url


@given(text=st.text(min_size=1, max_size=50).filter(lambda t: not any(c.isspace() for c in t)))
def test_a_whole_text_entity_round_trips(text: str) -> None:
    length = len(text.encode("utf-16-le", "surrogatepass")) // 2
    urls = extract_urls(text, [Entity("url", 0, length)])
    assert len(urls) <= 1
