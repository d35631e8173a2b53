"""User-facing errors: each names the problem in one line and maps to exit status 2."""


class HopgraphError(Exception):
    """An error caused by the user's input or setup, reported without a traceback."""


class InputError(HopgraphError):
    """A file, question or option that hopgraph cannot use."""
