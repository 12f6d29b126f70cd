"""The stderr tail a failure is classified and reported from."""

from __future__ import annotations

import pytest

from adapters.process import STDERR_TAIL_BYTES, TailBuffer


def test_the_tail_keeps_the_last_64_kib_cut_at_a_line_boundary() -> None:
    tail = TailBuffer()
    lines = [f"{i:05d} " + "x" * 1000 for i in range(300)]
    for line in lines:
        tail.add(line)
    text = tail.text()
    assert len(text.encode()) <= STDERR_TAIL_BYTES
    assert len(text.encode()) > STDERR_TAIL_BYTES - 1100
    kept = text.splitlines()
    assert kept == lines[-len(kept) :]


def test_one_huge_line_keeps_its_end() -> None:
    tail = TailBuffer(limit=100)
    tail.add("a" * 500 + "END")
    assert tail.text().endswith("END\n")
    assert len(tail.text().encode()) <= 100


@pytest.mark.parametrize("limit", [10, 100, 1000])
def test_the_tail_never_exceeds_its_limit(limit: int) -> None:
    tail = TailBuffer(limit)
    for i in range(200):
        tail.add("é" * (i % 37))
        assert len(tail.text().encode()) <= limit
