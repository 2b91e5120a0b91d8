"""A property-based check of the OpenAPI schema (schemathesis): no generated request, valid
or not, makes the server answer 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assay.config import load_settings
from assay.lab import Lab
from assay.web.app import ServerConfig, create_app
from assay.web.testing import serve_in_thread


@pytest.fixture(scope="module")
def api_schema(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    import schemathesis  # here, not at collection: every test process would pay its import

    home = tmp_path_factory.mktemp("schema-home")
    config = ServerConfig(
        load_settings(home=home, search="searxng", searxng_url=lab.sites[0],
                      allow_hosts=["127.0.0.0/8"], fsync="never"),
        max_runs=1,
    )  # fmt: skip
    with serve_in_thread(create_app(config)) as base:
        yield schemathesis.openapi.from_url(f"{base}/openapi.json")


def test_no_generated_request_is_a_server_error(api_schema: Any) -> None:
    # schemathesis' own pytest integration does not load under this pytest (pyproject turns
    # the plugin off); its case strategies under plain hypothesis do the same.
    from hypothesis import HealthCheck, given, settings

    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 10
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
        def check(case: Any) -> None:
            response = case.call(timeout=30)
            assert response.status_code < 500, (case.method, case.path, response.text[:300])

        check()
