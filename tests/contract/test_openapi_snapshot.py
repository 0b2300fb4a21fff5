"""The HTTP contract does not change by accident: the served ``/openapi.json`` equals the committed copy
(``tests/contract/openapi.json``), which the generated clients' tests (tests/clients) were made against. A change
is made on purpose: write the copy again with ``python -m tests.contract.snapshot`` and commit the diff."""

from __future__ import annotations

import json

import pytest

from tests.contract.snapshot import COMMAND, SNAPSHOT, differences, served, text_of

#: How many of the differences the failure lists.
SHOWN = 25


def test_the_served_openapi_document_is_the_committed_one():
    document = served()
    assert SNAPSHOT.exists(), f"no committed copy of the OpenAPI document: write it with `{COMMAND}`"
    committed = json.loads(SNAPSHOT.read_text())
    changed = differences(committed, document)
    shown = changed[:SHOWN] + ([f"(and {len(changed) - SHOWN} more)"] if len(changed) > SHOWN else [])
    if changed:
        pytest.fail("the served OpenAPI document differs from tests/contract/openapi.json, which generated "
                    "clients are built from:\n  " + "\n  ".join(shown) + "\nif the change is meant, write "
                    f"the copy again with `{COMMAND}` and commit it with the change (check tests/clients)",
                    pytrace=False)
    assert SNAPSHOT.read_text() == text_of(committed), f"the copy is not in its sorted form: write it with `{COMMAND}`"


def test_the_differences_name_what_changed():
    old = {"paths": {"/a": {"get": {"responses": {"200": {"type": "object"}}}}}, "tags": [1, 2]}
    new = {"paths": {"/a": {"get": {"responses": {"200": {"type": "array"}}}}, "/b~c": {}}, "tags": [1, 2, 3]}
    assert differences(old, new) == ['/paths/~1a/get/responses/200/type: "object" -> "array"',
                                     "/paths/~1b~0c: added", "/tags: [1, 2] -> [1, 2, 3]"]
    assert differences(new, old)[1] == "/paths/~1b~0c: removed"
    assert differences(old, old) == []
