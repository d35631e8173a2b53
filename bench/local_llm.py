"""The real local model the tests use (tests/support/local_model.py), for the bench scripts that record
or measure with it: a test server, not part of the package, so it is reached through tests/support."""

import sys
from pathlib import Path

SUPPORT = Path(__file__).resolve().parents[1] / "tests" / "support"
if str(SUPPORT) not in sys.path:
    sys.path.insert(0, str(SUPPORT))

from local_model import LocalServer, cached_model, ensure_model  # noqa: E402  (needs the path above)

__all__ = ["LocalServer", "cached_model", "ensure_model"]
