"""aiogram's pydantic models built when first used, not all of them while aiogram imports.

aiogram declares its Telegram types `defer_build=True`, then, at the end of `aiogram.types`, calls
`model_rebuild()` on every one of them to resolve their forward references (each module imports
the types it names only for type checkers), which builds all ~400 validators and serializers at
import; the ~185 methods build theirs as their classes are made. That is two thirds of a bot's
start (2–3 s of CPU on a slow core, issue 25) for models of which a bot uses a few dozen.
aiogram 3.31 offers no switch for it (aiogram#1891 asks for a faster start; #1861, in 3.31,
only stopped rebuilding the namespace for every model).

`defer_aiogram_models()`, called before aiogram is first imported, keeps aiogram's own
`defer_build` in force:

- the names that loop would resolve the references with are put where pydantic looks when it
  builds a deferred model on first use: the globals of the module that defines the model (added,
  never replacing a name the module has);
- that loop's rebuilds are skipped, during that import only (pydantic's own `model_rebuild` is
  back in place once `aiogram.types` is imported);
- the methods are declared `defer_build` too.

Each model is then built by pydantic the first time it validates or serializes (`Update`, with all
it nests, in about 0.1 s), exactly as it would have been at import. The bot runs aiogram on one
thread (pydantic 2.13 does not make the first use of a deferred model thread-safe).

If aiogram changes the shape this relies on, the hook does nothing and aiogram imports as it
always did; tests/integration/adapters/telegram/test_deferred_models.py fails, so an upgrade
says so.
"""

from __future__ import annotations

import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importlib.abc costs 20-30 ms of import, paid by every command
    from importlib.abc import Loader

_TYPES = "aiogram.types"
_TYPES_BASE = "aiogram.types.base"
_METHODS_BASE = "aiogram.methods.base"


class _Deferral:
    """The state of one deferred import: the namespace aiogram's rebuild loop passed."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {}
        self.skipped = 0
        self.after: dict[str, Callable[[ModuleType], None]] = {
            _TYPES_BASE: self._skip_rebuilds,
            _TYPES: self._resolve_later,
            _METHODS_BASE: _defer_methods,
        }

    def _skip_rebuilds(self, base: ModuleType) -> None:
        deferral = self
        telegram_object = getattr(base, "TelegramObject", None)
        if telegram_object is None:
            return

        def model_rebuild(cls: type[Any], /, **kwargs: Any) -> bool | None:
            namespace = kwargs.get("_types_namespace")
            if namespace is None or kwargs.get("force"):  # not the import's loop: pydantic's own
                rebuilt: bool | None = original(cls, **kwargs)
                return rebuilt
            if not deferral.namespace:  # the loop passes one namespace to every model
                deferral.namespace = dict(namespace)
            deferral.skipped += 1
            return None

        original = telegram_object.model_rebuild.__func__
        telegram_object.model_rebuild = classmethod(model_rebuild)

    def _resolve_later(self, types: ModuleType) -> None:
        telegram_object = getattr(types, "TelegramObject", None)
        if telegram_object is None:
            return
        if "model_rebuild" in vars(telegram_object):
            del telegram_object.model_rebuild  # BaseModel's again
        namespace = self.namespace
        defining = {
            value.__module__
            for value in namespace.values()
            if isinstance(value, type) and issubclass(value, telegram_object)
        }
        for name in defining:
            if (module := sys.modules.get(name)) is not None:
                known = vars(module)
                known.update({missing: namespace[missing] for missing in namespace.keys() - known.keys()})


def _defer_methods(base: ModuleType) -> None:
    method = getattr(base, "TelegramMethod", None)
    if method is None:
        return
    method.model_config = {**method.model_config, "defer_build": True}


_DEFERRALS: list[_Deferral] = []
"""At most one: the first import of aiogram in this process."""


def defer_aiogram_models() -> None:
    """Install the hook for the first import of aiogram in this process (a no-op once aiogram is
    imported, or when called again)."""
    if _DEFERRALS or "aiogram" in sys.modules:
        return
    deferral = _Deferral()
    _DEFERRALS.append(deferral)
    sys.meta_path.insert(0, _Finder(deferral))


def deferred_rebuilds() -> int:
    """How many of aiogram's import-time rebuilds were skipped in this process (0: none)."""
    return sum(deferral.skipped for deferral in _DEFERRALS)


class _Finder:
    """On `sys.meta_path`, finds nothing itself: has the standard path finder find the modules
    named in `after` and makes each one's loader run its step once the module has executed.
    A module it cannot wrap ends the deferral: aiogram then imports as it always did (the types'
    module comes before their base, so their rebuilds are only skipped once that is certain)."""

    def __init__(self, deferral: _Deferral) -> None:
        self._deferral = deferral

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        step = self._deferral.after.pop(fullname, None)
        if step is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            self._deferral.after.clear()
        else:
            _then(spec.loader, step)
        if not self._deferral.after:
            sys.meta_path.remove(self)
        return spec


def _then(loader: Loader, step: Callable[[ModuleType], None]) -> None:
    """The loader stays the standard one (its `get_source`, resources...); the finder made it for
    this module alone, so its `exec_module` is wrapped on the instance."""
    execute = loader.exec_module

    def exec_module(module: ModuleType) -> None:
        execute(module)
        step(module)

    setattr(loader, "exec_module", exec_module)  # noqa: B010 (mypy: a method is not assignable)
