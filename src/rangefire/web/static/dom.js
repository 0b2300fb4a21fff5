// Small helpers for building the page: every text is set with textContent, never parsed as HTML (names in a
// scenario may contain markup).

export function h(name, attrs = {}, ...children) {
  const node = document.createElement(name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "onclick") node.addEventListener("click", v);
    else if (k === "text") node.textContent = String(v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// The page's element of that id (every id asked for is in the page's HTML).
/**
 * @param {string} id
 * @returns {HTMLElement}
 */
export function $(id) { return /** @type {HTMLElement} */ (document.getElementById(id)); }

// "[DC-3.2]" as its own element, so that every rule cited reads alike.
export function clause(code) { return code ? h("span", { class: "clause" }, `[${code}]`) : null; }

// One line of a log or a plan: its text and its clause.
export function clauseLine(tag, text, code, attrs = {}) {
  return h(tag, attrs, clause(code), code ? " " : null, text);
}

export function show(node, visible) { node.hidden = !visible; }

// A probability for people: its percentage first, the exact fraction a tap away (the percentage is a button that
// shows the fraction beside it, and hides it again): frac.js's percent and fracText of the same fraction.
export function chance(pct, exact) {
  const fraction = h("span", { class: "fraction", hidden: true }, exact);
  const button = h("button", { type: "button", class: "pct", "aria-expanded": "false",
                               "aria-label": `${pct}: show the exact fraction` }, pct);
  button.addEventListener("click", () => {
    fraction.hidden = !fraction.hidden;
    button.setAttribute("aria-expanded", String(!fraction.hidden));
  });
  return h("span", { class: "chance" }, button, " ", fraction);
}
