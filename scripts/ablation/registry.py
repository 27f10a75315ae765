"""A registry of named classes: model variants (``ablation.model``), architectures
(``ablation.architectures``) and tasks (``ablation.data``) register under a name with a class
decorator, and a config names them."""

from __future__ import annotations


def registrar(registry: dict, kind: str):
    """A class decorator factory: ``@positional_encoding("rope")`` registers the class under "rope"."""

    def named(name: str):
        def register(cls):
            if name in registry:
                raise ValueError(f"{kind} {name!r} is registered twice")
            registry[name] = cls
            return cls

        return register

    return named


def lookup(registry: dict, name: str, setting: str):
    """registry[name], or a one-line error that lists the registered names."""
    try:
        return registry[name]
    except KeyError:
        raise ValueError(f"{setting} must be one of {', '.join(registry)}; got {name!r}") from None
