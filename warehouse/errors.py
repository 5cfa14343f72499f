"""The error classes the library raises; the CLI's one error boundary maps them to exit codes."""

from __future__ import annotations

from collections.abc import Callable


class TracewhError(Exception):
    """A failure the user can act on; its message is one readable line (exit code 1)."""


class UsageError(TracewhError):
    """The command was asked for something that does not exist or makes no sense (exit code 2)."""


class InputError(TracewhError):
    """A source file cannot be ingested (corrupt, truncated, wrong trace, checksum mismatch)."""


class CatalogError(TracewhError):
    """The catalog cannot be opened or written (locked, not writable, moved)."""


class Interrupted(TracewhError):
    """Ctrl-C or SIGTERM stopped the command; the message says what state it left (exit code 130)."""


class DownloadError(TracewhError):
    """A published file cannot be fetched or verified (host unreachable, HTTP error, digest mismatch)."""


class OptionError(UsageError):
    """A bad option value or combination, found where the options object is made (tracewh.options).
    Its message names the options as the Python API spells them (``replace=True``); an interface
    that spells them otherwise (the command line's flags) words the same error with ``worded``, so
    each caller reads the names it typed."""

    def __init__(self, template: str, *options: tuple[str, object]) -> None:
        # ``template``: the message with a ``{}`` for each option, in order (text from the user
        # inside it has its braces doubled).
        self.template, self.options = template, options
        super().__init__(self.worded(lambda name, value: f"{name}={value!r}"))

    def worded(self, spell: Callable[[str, object], str]) -> str:
        """The message with each option written as ``spell(name, value)``."""
        return self.template.format(*(spell(name, value) for name, value in self.options))

    @staticmethod
    def flag(name: str, value: object) -> str:
        """An option as the command line spells it: ``--parts '0-x'``, or ``--replace`` for a switch."""
        option = "--" + name.replace("_", "-")
        return option if isinstance(value, bool) else f"{option} {value!r}"
