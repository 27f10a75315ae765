"""A registry of named classes: model variants (``ablation.model``) and tasks (``ablation.data``)
register under a name with a class decorator, and a config names them."""

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
