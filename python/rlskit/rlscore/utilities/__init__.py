"""RLScore's utilities: reader, cross_validation, multiclass."""

from . import cross_validation, multiclass, reader  # noqa: F401
