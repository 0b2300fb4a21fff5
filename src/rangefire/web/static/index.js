// The home page: the example battles, each with a button that starts a battle of it, and a battle from a
// scenario pasted as JSON. A new battle shows its links (one per side, one for spectators) once: the server
// keeps only their hashes.
import { h } from "./dom.js";

const $ = (id) => document.getElementById(id);

async function call(method, path, body) {
  const init = { method, headers: { Accept: "application/json" }, cache: "no-store" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify({ format: 1, ...body });
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const e = data.error || {};
    throw new Error(`${e.message || `the server answered ${response.status}`}${e.path ? ` (at ${e.path})` : ""}`);
  }
  return data;
}

function fail(exc) {
  $("error").textContent = exc.message;
  $("error").hidden = false;
}

// Only links to this site's battle pages are shown as links.
function safeLink(link) {
  const url = new URL(link, location.origin);
  return url.origin === location.origin && url.pathname.startsWith("/battle/") ? url.href : null;
}

function showCreated(title, created) {
  const items = [];
  for (const [side, link] of Object.entries(created.links || {})) {
    const href = safeLink(link);
    if (!href) continue;
    const who = side === "spectator" ? "Spectators (watch only)" : `Play ${side}`;
    const copy = h("button", { type: "button", class: "copy" }, "Copy link");
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(href);
        copy.textContent = "Copied";
      } catch (exc) {
        copy.textContent = "Select the link to copy it";
      }
    });
    items.push(h("li", { "data-side": side }, h("a", { href, target: "_blank", rel: "noopener noreferrer" }, who),
      " ", copy, h("div", { class: "hint" }, href)));
  }
  $("created").replaceChildren(h("h2", {}, `New battle: ${title}`),
    h("p", {}, "Each link lets its holder play that side; keep them: they are shown only now."),
    h("ul", { class: "links" }, ...items));
  $("created").scrollIntoView({ behavior: "smooth", block: "nearest" });
}

async function create(title, body) {
  $("error").hidden = true;
  try {
    const created = await call("POST", "/api/battles", {
      ...body, entered_dice: $("entered-dice").checked,
      undo: $("undo-any").checked ? "any" : "fair", open_hands: $("open-hands").checked,
    });
    showCreated(title, created);
  } catch (exc) {
    fail(exc);
  }
}

async function main() {
  try {
    const [{ examples }, { rulesets }] = await Promise.all([call("GET", "/api/examples"), call("GET", "/api/rulesets")]);
    const names = Object.fromEntries(rulesets.map((r) => [r.key, r.name]));
    $("empty-game").replaceChildren(...rulesets.filter((r) => r.key !== "swerve")
      .map((r) => h("option", { value: r.key }, r.name)));
    $("examples").replaceChildren(...examples.map((ex) => h("li", { class: "example", "data-example": ex.name },
      h("h3", {}, ex.title || ex.name), h("p", { class: "game" }, names[ex.ruleset] || ex.ruleset),
      h("button", { type: "button", class: "primary", onclick: () => create(ex.title || ex.name, { example: ex.name }) },
        "New battle"))));
  } catch (exc) {
    fail(exc);
  }
  $("empty-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const game = $("empty-game").value;
    const sides = $("empty-sides").value.split(",").map((x) => x.trim()).filter(Boolean);
    const body = { game, sides };
    const width = Number($("empty-width").value), depth = Number($("empty-depth").value);
    if (game !== "swerve" && width > 0 && depth > 0) body.table = { width, depth };
    create(`an empty table (${game})`, body);
  });
  $("scenario-form").addEventListener("submit", (e) => {
    e.preventDefault();
    let scenario;
    try {
      scenario = JSON.parse($("scenario").value);
    } catch (exc) {
      fail(new Error(`the scenario is not JSON: ${exc.message}`));
      return;
    }
    create(scenario && scenario.name ? String(scenario.name) : "your scenario", { scenario });
  });
}

main();
