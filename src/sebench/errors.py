"""The one exception type that the command line turns into a one-line message (no traceback)."""


class SebenchError(Exception):
    """A user-facing error: says what is wrong, where (file, line, field) and, where known, the fix."""
