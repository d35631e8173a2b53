"""The API fuzzed from its own OpenAPI schema (schemathesis, in-process over ASGI): every operation,
with generated valid and invalid bodies, paths and queries, never answers with a 5xx and never with a
body its schema does not allow. Bounded: `FUZZ_EXAMPLES` cases per operation, no shrinking, and a
deadline per case (a question runs the real model). The store is a copy of the sample store, so
generated documents may be added and deleted."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402  (after the skip: a dev-only extra)
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import response_schema_conformance  # noqa: E402

from hopgraph.config import Settings  # noqa: E402
from hopgraph.serve.app import create_app  # noqa: E402

FUZZ_EXAMPLES = 10  # per operation: a few minutes on 2 busy cores
COUNTED: dict[str, int] = {}


@pytest.fixture(scope="module")
def api_schema(sample_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    store = Path(shutil.copyfile(sample_store, tmp_path_factory.mktemp("fuzzed") / "sample.db"))
    app = create_app(str(store), Settings())
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    app.state.graph.close()
    print(f"\nschemathesis cases per operation: {COUNTED} ({sum(COUNTED.values())} in all)")


def test_no_generated_request_gets_a_server_error_or_a_body_outside_the_schema(api_schema) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    for operation in operations:
        fuzz(operation)
    assert len(COUNTED) == len(operations) and min(COUNTED.values()) >= 1


def fuzz(operation: object) -> None:
    @given(case=operation.as_strategy())  # type: ignore[attr-defined]
    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    def calls(case: object) -> None:
        COUNTED[case.operation.label] = COUNTED.get(case.operation.label, 0) + 1  # type: ignore[attr-defined]
        case.call_and_validate(checks=[not_a_server_error, response_schema_conformance],  # type: ignore[attr-defined]
                               timeout=300)  # a question runs the real model on a busy machine

    calls()
