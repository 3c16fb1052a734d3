"""SE-Bench toolkit: measure whether a language model internalizes a library it has never seen."""

__version__ = "0.1.0"
