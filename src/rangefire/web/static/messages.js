// The page's messages: the status line (what was just done, what to do next) and the error box, which says what
// the server refused with its clause and where in what was sent (a 401: the battle's link is the way in), each
// refusal of several on a line of its own, and a button to dismiss it.
import { ApiError } from "./api.js";
import { $, clause, clauseLine, h } from "./dom.js";

export function status(text) { $("status").textContent = text; }

export function fail(exc) {
  const box = $("error");
  const e = exc instanceof ApiError ? exc.error : { message: String(exc.message || exc) };
  const parts = [clause(e.clause), e.clause ? " " : null, e.message || "something went wrong"];
  if (e.path) parts.push(h("span", { class: "path" }, ` (at ${e.path})`));
  if (exc instanceof ApiError && exc.status === 401) parts.push(". Open the link you were given for this battle (it ends in #token=…).");
  box.replaceChildren(...parts.filter(Boolean));
  if (exc instanceof ApiError && Array.isArray(e.refusals) && e.refusals.length > 1) {
    box.append(h("ul", {}, ...e.refusals.map((r) => clauseLine("li", r.reason, r.clause))));
  }
  const dismiss = h("button", { type: "button", class: "dismiss", "aria-label": "Dismiss this message" }, "×");
  dismiss.addEventListener("click", clearError);
  box.append(dismiss);
  box.hidden = false;
}

export function clearError() { $("error").hidden = true; }
