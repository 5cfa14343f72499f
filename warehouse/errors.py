"""The error classes the library raises; the CLI's one error boundary maps them to exit codes."""


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
