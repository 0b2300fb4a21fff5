"""The committed copy of the served OpenAPI document, ``tests/contract/openapi.json``, and how it is made.

A change to the HTTP contract is deliberate: after changing a route, a body or an answer's model, write the copy
again with ``python -m tests.contract.snapshot`` (from the project's folder) and commit it with the change; the
diff shows what a generated client will see changed. ``--check`` only compares (exit 1 when they differ)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).resolve().parent / "openapi.json"
COMMAND = "python -m tests.contract.snapshot"


def served() -> dict[str, Any]:
    """``GET /openapi.json`` as a server over a fresh database answers it."""
    from fastapi.testclient import TestClient

    from rangefire.web import create_app

    with tempfile.TemporaryDirectory() as folder, TestClient(create_app(Path(folder) / "battles.sqlite3")) as client:
        response = client.get("/openapi.json")
        assert response.status_code == 200, response.text
        document: dict[str, Any] = response.json()
        return document


def text_of(document: dict[str, Any]) -> str:
    """The document as the copy holds it: keys sorted and one per line, so that a diff reads as the change."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def differences(old: Any, new: Any, where: str = "", limit: int = 10_000) -> list[str]:
    """Where two JSON documents differ, as JSON pointers with what each holds there (at most ``limit``)."""
    found: list[str] = []

    def walk(a: Any, b: Any, at: str) -> None:
        if len(found) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                here = f"{at}/{str(key).replace('~', '~0').replace('/', '~1')}"
                if key not in b:
                    found.append(f"{here}: removed")
                elif key not in a:
                    found.append(f"{here}: added")
                else:
                    walk(a[key], b[key], here)
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{at}/{i}")
        elif a != b:
            found.append(f"{at or '/'}: {json.dumps(a)[:80]} -> {json.dumps(b)[:80]}")

    walk(old, new, where)
    return found


def main(argv: list[str]) -> int:
    document = served()
    if "--check" in argv:
        old = json.loads(SNAPSHOT.read_text()) if SNAPSHOT.exists() else {}
        changed = differences(old, document)
        for line in changed:
            print(line)
        return 1 if changed else 0
    SNAPSHOT.write_text(text_of(document))
    print(f"wrote {SNAPSHOT.relative_to(Path.cwd()) if SNAPSHOT.is_relative_to(Path.cwd()) else SNAPSHOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
