"""How far a handler reaches: measured on the import graph (grimp, the library import-linter
reads it with), so a handler stays a few rooms away from the ports and out of the worker side."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import grimp
import pytest

HANDLERS = "entrypoints.bot.handlers"
WORKER_SIDE = "core.work"
LONGEST_HANDLER_CHAIN = 10
"""Modules in the longest chain from a handler module to a port, both ends counted."""


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("core", "ports", "adapters", "entrypoints", "testkit")


def handler_modules(graph: grimp.ImportGraph) -> list[str]:
    return sorted(m for m in graph.modules if m == HANDLERS or m.startswith(f"{HANDLERS}."))


def is_port(module: str) -> bool:
    return module == "ports" or module.startswith("ports.")


def longest_chains(graph: grimp.ImportGraph) -> Iterator[tuple[str, ...]]:
    """For each handler module, its longest chain of imports that ends at a port."""
    visiting: set[str] = set()

    @functools.cache
    def longest(module: str) -> tuple[str, ...] | None:
        if module in visiting:
            raise AssertionError(f"an import cycle through {module}")
        visiting.add(module)
        best: tuple[str, ...] | None = (module,) if is_port(module) else None
        for imported in graph.find_modules_directly_imported_by(module):
            chain = longest(imported)
            if chain is not None and (best is None or len(chain) + 1 > len(best)):
                best = (module, *chain)
        visiting.discard(module)
        return best

    for handler in handler_modules(graph):
        if (chain := longest(handler)) is not None:
            yield chain


def test_the_longest_chain_from_a_handler_to_a_port_is_short(graph: grimp.ImportGraph) -> None:
    chains = list(longest_chains(graph))
    assert chains, "no handler reaches a port: the graph was not read"
    longest = max(chains, key=len)
    assert len(longest) <= LONGEST_HANDLER_CHAIN, " -> ".join(longest)


def test_no_handler_module_imports_the_worker_side(graph: grimp.ImportGraph) -> None:
    for handler in handler_modules(graph):
        chain = graph.find_shortest_chain(importer=handler, imported=WORKER_SIDE, as_packages=True)
        assert chain is None, " -> ".join(chain or ())
    assert graph.find_shortest_chain(importer="core.incoming", imported=WORKER_SIDE, as_packages=True) is None


def test_the_measure_sees_a_chain_that_is_there(graph: grimp.ImportGraph) -> None:
    """The links handler reaches the ports through the core (the intake, the chat's words): a
    measure that found nothing would pass the bound above for the wrong reason."""
    chains = {chain[0]: chain for chain in longest_chains(graph)}
    links = chains[f"{HANDLERS}.links"]
    assert len(links) > 4
    assert any(module.startswith("core.") for module in links)
    assert is_port(links[-1])
    assert graph.find_shortest_chain(importer="core.work.inline", imported="core.work.delivery.video")
