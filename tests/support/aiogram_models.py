"""Every aiogram model's validator schema, in a form two processes can compare.

`python -m tests.support.aiogram_models eager|deferred` imports aiogram as it ships (every model
built at import) or the way the bot does (`import entrypoints`: built on first use), uses every
type and method once (and each method's `Response[...]`, which aiogram's session builds per call),
and prints one JSON object: for each model the schema pydantic built, as a graph.

As a graph, because the order of the builds changes the layout but not the meaning: a model built
while another one was already complete refers to it (`definition-ref`), one built before inlines
it. So each named schema (a model, keyed by its class) is kept once, with the models it nests
replaced by their names, and the ids pydantic appends to names are dropped.
"""

from __future__ import annotations

import json
import re
import sys
from types import ModuleType
from typing import Any

_ID = re.compile(r":\d{6,}")
"""`aiogram.types.chat.Chat:94902241286784`: the id() in a schema's name."""


def main(mode: str) -> None:
    if mode == "deferred":
        import entrypoints  # noqa: F401  (the bot's own way in)
    import aiogram.methods
    import aiogram.types
    from aiogram.methods.base import Response

    from adapters.telegram.deferred_models import deferred_rebuilds

    named: dict[str, set[str]] = {}
    roots: dict[str, Any] = {}
    for module in (aiogram.types, aiogram.methods):
        for name, model in _models(module):
            roots[name] = _graph(_first_use(model), named)
            returning = vars(model).get("__returning__", property())
            if not isinstance(returning, property):
                roots[f"Response[{name}]"] = _graph(_first_use(Response[returning]), named)
    print(
        json.dumps(
            {
                "deferred_rebuilds": deferred_rebuilds(),
                "roots": roots,
                "named": {key: sorted(bodies) for key, bodies in named.items()},
            },
            sort_keys=True,
        )
    )


def _models(module: ModuleType) -> list[tuple[str, type[Any]]]:
    found = [(name, getattr(module, name)) for name in module.__all__]
    return [(name, model) for name, model in found if isinstance(model, type) and _is_pydantic(model)]


def _is_pydantic(model: type[Any]) -> bool:
    return hasattr(model, "__pydantic_complete__")


def _first_use(model: type[Any]) -> Any:
    """What a validation does first: ask for the validator (a deferred model builds here)."""
    getattr(model.__pydantic_validator__, "title", None)
    return model.__pydantic_core_schema__


def _graph(node: Any, named: dict[str, set[str]]) -> Any:
    if isinstance(node, dict):
        if node.get("type") == "definitions":
            for definition in node["definitions"]:
                _graph(definition, named)
            return _graph(node["schema"], named)
        if node.get("type") == "definition-ref":
            return "ref:" + _ID.sub("", node["schema_ref"])
        body = {key: _graph(value, named) for key, value in sorted(node.items()) if key != "ref"}
        if "ref" not in node:
            return body
        name = _ID.sub("", node["ref"])
        named.setdefault(name, set()).add(json.dumps(body, sort_keys=True))
        return "ref:" + name
    if isinstance(node, list | tuple):
        return [_graph(item, named) for item in node]
    return _leaf(node)


def _leaf(value: Any) -> Any:
    if isinstance(value, type):
        return f"type:{value.__module__}.{value.__qualname__}"
    if callable(value):
        qualname = getattr(value, "__qualname__", type(value).__qualname__)
        return f"callable:{getattr(value, '__module__', '?')}.{qualname}"
    if isinstance(value, str):
        return _ID.sub("", value)
    if value is None or isinstance(value, int | float | bool):
        return value
    shown = repr(value)
    return f"{type(value).__qualname__}" + ("" if " at 0x" in shown else f":{shown}")


if __name__ == "__main__":
    main(sys.argv[1])
