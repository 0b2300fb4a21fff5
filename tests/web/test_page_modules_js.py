"""The web pages' modules (static/*.js) link as a browser links them, in Node, without running them: every import
names a module of static/ and names only what that module exports, so that a module split off or renamed is
named right wherever it is imported; and every module is loaded by a page (its <script type="module">) or
imported by one that is, so that none is left behind unused."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "src" / "rangefire" / "web" / "static"
NODE = shutil.which("node")

# Each module is read and linked (imports resolved, names checked) but never evaluated: the page's scripts need
# a window and a document that Node has not.
_PROGRAM = """
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import vm from "node:vm";

const modules = new Map();
const context = vm.createContext({});
function load(path) {
  if (!modules.has(path)) {
    modules.set(path, new vm.SourceTextModule(readFileSync(path, "utf8"), { identifier: path, context }));
  }
  return modules.get(path);
}
const problems = [];
for (const entry of process.argv.slice(2)) {
  try {
    await load(entry).link(async (specifier, referrer) => {
      const which = `${referrer.identifier} imports ${specifier}`;
      if (!specifier.startsWith("./")) throw new Error(`${which}: not a module of its own folder`);
      const path = join(dirname(referrer.identifier), specifier);
      if (!existsSync(path)) throw new Error(`${which}: there is no such file`);
      return load(path);
    });
  } catch (exc) {
    problems.push(`${entry}: ${exc.message}`);
  }
}
console.log(JSON.stringify({ problems, loaded: [...modules.keys()] }));
"""


def pages_scripts(folder: Path) -> list[Path]:
    """The modules the pages load themselves (``<script type="module" src="/static/...">``)."""
    found = []
    for page in sorted(folder.glob("*.html")):
        for name in re.findall(r'<script type="module" src="/static/([\w.-]+\.js)"></script>', page.read_text()):
            found.append(folder / name)
    return found


def link(folder: Path, tmp_path: Path) -> tuple[list[str], set[str]]:
    """What goes wrong linking the pages' modules of ``folder``, and the names of the modules linked."""
    program = tmp_path / "link.mjs"
    program.write_text(_PROGRAM)
    entries = pages_scripts(folder)
    assert entries, f"no page of {folder} loads a module"
    done = subprocess.run([NODE, "--experimental-vm-modules", str(program), *map(str, entries)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    return answer["problems"], {Path(p).name for p in answer["loaded"]}


needs_node = pytest.mark.skipif(NODE is None, reason="Node.js links the page's modules here; it is not on this machine")


@needs_node
def test_every_module_of_the_pages_links_and_is_used(tmp_path):
    problems, loaded = link(STATIC, tmp_path)
    assert problems == []
    assert {"app.js", "index.js"} <= loaded
    assert loaded == {p.name for p in STATIC.glob("*.js")}, "modules no page loads or imports"


@needs_node
def test_a_name_a_module_does_not_export_a_missing_module_and_an_unused_one_are_told(tmp_path):
    folder = tmp_path / "static"
    shutil.copytree(STATIC, folder)
    app = folder / "app.js"
    text = app.read_text()
    # the page's first named import, renamed: the module it comes from exports no such name
    found = re.search(r'import \{ (\w+)[ ,][^}]*\} from "\./([\w.-]+)";', text)
    assert found is not None
    name, module = found.group(1), found.group(2)
    app.write_text(text.replace(found.group(0), found.group(0).replace(name, f"{name}Gone", 1), 1))
    (folder / "unused.js").write_text("export const nothing = 0;\n")
    problems, loaded = link(folder, tmp_path)
    assert len(problems) == 1 and f"./{module}' does not provide an export named '{name}Gone'" in problems[0]
    assert "unused.js" not in loaded
    app.write_text(text.replace(f'"./{module}"', '"./nowhere.js"', 1))
    problems, _ = link(folder, tmp_path)
    assert len(problems) == 1 and "imports ./nowhere.js: there is no such file" in problems[0]
