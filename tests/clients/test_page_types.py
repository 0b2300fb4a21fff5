"""The page's own modules read the API through the same generated types: each module of
``src/rangefire/web/static`` that opts in (``// @ts-check`` on its first line; ``api.js`` and ``pending.js``
always) is checked by ``tsc --checkJs --strict`` beside ``openapi.d.ts``, the types openapi-typescript generates
from the served ``/openapi.json``. A probe module shows that what the page's ``Api`` answers is typed by route
(the battle's state, its targets, an attack that may wait), so that a key the document does not hold is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.clients.conftest import ROOT, npx

STATIC = ROOT / "src" / "rangefire" / "web" / "static"

#: Reads of the page's ``Api`` answers that hold only where every one is typed by its route.
PROBE = """// @ts-check
import { Api, ApiError } from "./api.js";

const api = new Api("battle", "token");
const state = await api.get("");
/** @type {number} */
const actions = state.actions;
/** @type {string | null | undefined} */
const acting = state.side_to_act;
const targets = await api.get("/targets?attacker=yoichi");
/** @type {string[]} */
const named = targets.targets.map((t) => t.target);
const fired = await api.post("/resolve", { attacker: "yoichi", target: "takeda" });
/** @type {string} */
const awaited = "pending" in fired ? fired.pending.by : "next" in fired ? fired.next.prompt : fired.ruleset;
const answered = await api.post("/answer", { answer: "nominate yojimbo", step: 1 });
const ended = await api.post("/end-turn", { activation: false });
/** @type {number} */
const after = ended.action;
/** @type {string} */
const svg = await api.drawing("yoichi", "takeda", { from_side: "left" });
const refused = new ApiError(409, { kind: "network", message: "the server cannot be reached" });
console.log(actions, acting, named, awaited, answered, after, svg, refused.error.kind);
"""


def checked_modules() -> list[str]:
    names = sorted(p.name for p in STATIC.glob("*.js") if p.read_text().startswith("// @ts-check"))
    # api.js reads every answer; pending.js the attack that waits (the 202, and the state's pending attack)
    missing = {"api.js", "pending.js"} - set(names)
    assert not missing, f"{sorted(missing)}: to be checked against the generated types (// @ts-check on line 1)"
    return names


def type_check(typescript_types: Path, work: Path, files: list[str], replace: dict[str, str] | None = None,
               libraries: bool = True) -> str:
    """``tsc`` over ``files`` (the page's modules copied beside the generated types, with ``replace`` applied to
    the probe; with ``libraries``, the generated types and the DOM's checked too): its errors, or ``""``."""
    shutil.copytree(typescript_types, work, symlinks=True)
    for module in STATIC.glob("*.js"):
        shutil.copy(module, work / module.name)
    probe = PROBE
    for old, new in (replace or {}).items():
        assert old in probe
        probe = probe.replace(old, new)
    (work / "probe.js").write_text(probe)
    options = {"allowJs": True, "checkJs": False, "noEmit": True, "strict": True, "target": "ES2022",
               "module": "ES2022", "moduleResolution": "Bundler", "lib": ["ES2022", "DOM", "DOM.Iterable"],
               "types": [], "skipLibCheck": not libraries}
    (work / "tsconfig.json").write_text(json.dumps({"compilerOptions": options, "files": files}))
    ran = npx(work, "tsc", "-p", "tsconfig.json")
    return "" if ran.returncode == 0 else ran.stdout + ran.stderr


def test_the_page_s_modules_type_check_against_the_generated_types(typescript_types, tmp_path):
    errors = type_check(typescript_types, tmp_path / "page", [*checked_modules(), "probe.js"])
    assert errors == "", f"the page's modules do not type-check against the served /openapi.json:\n{errors}"


def test_a_key_the_answer_does_not_hold_is_refused(typescript_types, tmp_path):
    # the check can fail: the page's Api answers and bodies are typed, not any
    errors = type_check(typescript_types, tmp_path / "wrong", ["probe.js"],
                        {"state.actions;": "state.actionz;", "ended.action;": "ended.actions;",
                         '{ attacker: "yoichi", target: "takeda" }': '{ attacker: "yoichi", targte: "takeda" }'},
                        libraries=False)
    assert "'actionz' does not exist" in errors and "'actions' does not exist" in errors, errors
    assert "'targte' does not exist" in errors, errors
