"""User-facing errors: each names the problem in one line and maps to exit status 2."""


class HopgraphError(Exception):
    """An error caused by the user's input or setup, reported without a traceback."""


class StoreBusy(HopgraphError):
    """Another process holds the store's write lock past the lock timeout (its message names it)."""


class InputError(HopgraphError):
    """A file, question or option that hopgraph cannot use."""


class UnreadableFile(InputError):
    """One input file that cannot be read: an index run skips it, naming the file and the reason."""

    def __init__(self, path: object, reason: str) -> None:
        # A name may hold a newline or a tab (found by tests/ingest/test_readers.py's fuzzing): the
        # message stays one line, the name written as Python would (`a\\nb.txt`).
        said = "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in str(path))
        super().__init__(f"{said}: {reason}")
        self.path = str(path)
        self.reason = reason
