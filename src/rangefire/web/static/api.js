// @ts-check
// The HTTP API as the page calls it: the token read once from the URL fragment (#token=..., never sent to a
// server in a request or a Referer), kept in this tab's sessionStorage, and sent as a Bearer header; JSON in
// and out; every refusal an ApiError carrying the server's error body (kind, message, clause, refusals...).
//
// Typed by the OpenAPI document the server serves: ./openapi.d.ts is what openapi-typescript generates from
// /openapi.json (tests/clients generate it and check this file with tsc --checkJs; see docs/http.md), so that a
// page's get("/targets?...") or post("/resolve", body) has the route's body and answer types.

/** @typedef {import("./openapi").paths} Paths */
/**
 * The OpenAPI path of a path as the page gives it: "" is the battle, "/x" (and "/x?query") the battle's route x,
 * "/api/..." itself.
 * @template {string} P
 * @typedef {P extends "" ? "/api/battles/{battle_id}"
 *   : P extends `/api/rulesets/${string}/schema` ? "/api/rulesets/{key}/schema"
 *   : P extends `/api/${string}` ? P
 *   : P extends `${infer R}?${string}` ? `/api/battles/{battle_id}${R}`
 *   : `/api/battles/{battle_id}${P}`} Route
 */
/**
 * The JSON a response of one of the statuses ``S`` holds (never, where none has JSON).
 * @template R, S
 * @typedef {{ [K in keyof R]: K extends S ? (R[K] extends { content: { "application/json": infer J } } ? J : never)
 *   : never }[keyof R]} Json
 */
/**
 * What a route answers (its every 2xx) when called with ``method``.
 * @template {string} P
 * @template {"get" | "post"} M
 * @typedef {Route<P> extends keyof Paths ? (Paths[Route<P>][M] extends { responses: infer R } ? Json<R, 200 | 201 | 202>
 *   : never) : unknown} Answer
 */
/**
 * The body a route takes (``format`` is added by the request).
 * @template {string} P
 * @typedef {Route<P> extends keyof Paths ? (Paths[Route<P>]["post"] extends
 *   { requestBody?: { content: { "application/json": infer B } } } ? Omit<B, "format"> : never) : never} Body
 */
/**
 * A refusal's ``error`` as the server says it (any route's, any status), or the page's own when no answer came.
 * @typedef {{ [P in keyof Paths]: { [M in keyof Paths[P]]: Paths[P][M] extends { responses: infer R }
 *   ? Json<R, 400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 414 | 415 | 421 | 422 | 431 | 500 | 501 | 503 | 505>
 *   : never }[keyof Paths[P]] }[keyof Paths]} ErrorBody
 * @typedef {ErrorBody extends { error: infer E } ? E : never} ServerError
 * @typedef {ServerError | { kind: "network" | "http", message: string }} ErrorDetail
 */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {ErrorDetail | null | undefined} error
   */
  constructor(status, error) {
    super(error && error.message ? error.message : `the server answered ${status}`);
    this.status = status;
    /** @type {Partial<ErrorDetail> & { kind?: string, message?: string, [key: string]: unknown }} */
    this.error = error || {};
  }
}

/** @param {string} [path] */
export function battleIdFromPath(path = location.pathname) {
  const m = path.match(/^\/battle\/([^/]+)\/?$/);
  return m ? decodeURIComponent(m[1]) : null;
}

// The token of this battle: from the fragment when there is one (then taken off the address bar, so that it is
// not left on screen or in a bookmark), else the one this tab kept.
/**
 * @param {string} battleId
 * @returns {string | null}
 */
export function takeToken(battleId) {
  const key = `rangefire-token:${battleId}`;
  const params = new URLSearchParams(location.hash.slice(1));
  const fresh = params.get("token");
  if (fresh) {
    sessionStorage.setItem(key, fresh);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(key);
}

// The routes that only ask (nothing is recorded): every other POST acts, and says the count of actions this page
// last saw (If-Match), so that a request sent twice, or after the battle changed, is refused (409 stale) and
// never acts twice.
const ASKING = new Set(["/check", "/odds"]);

export class Api {
  /**
   * @param {string} battleId
   * @param {string | null} token
   */
  constructor(battleId, token) {
    this.base = `/api/battles/${encodeURIComponent(battleId)}`;
    this.token = token;
    /** @type {number | null} the battle's count of actions as this page last read it */
    this.seen = null;
  }

  /**
   * @param {"GET" | "POST"} method
   * @param {string} path
   * @param {object} [body]
   * @param {string} [accept]
   * @returns {Promise<unknown>} the answer's JSON (its text when ``accept`` is not JSON)
   */
  async request(method, path, body, accept = "application/json") {
    /** @type {Record<string, string>} */
    const headers = { Accept: accept };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const acting = method === "POST" && !path.startsWith("/api/") && !ASKING.has(path)
      && !(body && "check" in body && body.check);
    if (acting && this.seen !== null) headers["If-Match"] = `"${this.seen}"`;
    /** @type {RequestInit} */
    const init = { method, headers, cache: "no-store", referrerPolicy: "no-referrer" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify({ format: 1, ...body });
    }
    let response;
    try {
      response = await fetch(path.startsWith("/api/") ? path : this.base + path, init);
    } catch (exc) {
      throw new ApiError(0, { kind: "network", message: "the server cannot be reached; try again" });
    }
    if (!response.ok) {
      let error = null;
      try {
        error = (await response.json()).error;
      } catch (exc) {
        error = null;
      }
      throw new ApiError(response.status, error || { kind: "http", message: `the server answered ${response.status}` });
    }
    if (accept !== "application/json") return response.text();
    /** @type {unknown} */
    const data = await response.json();
    if (data && typeof data === "object" && !Array.isArray(data)) {
      const count = "actions" in data && typeof data.actions === "number" && Number.isInteger(data.actions)
        ? data.actions : null;
      if (path === "" && count !== null) this.seen = count;  // the state
      else if (acting && count !== null && "battle" in data && "you" in data) this.seen = count;
      else if (acting && "action" in data && typeof data.action === "number" && Number.isInteger(data.action)) {
        this.seen = data.action;  // the count after an action
      }
    }
    return data;
  }

  /**
   * @template {string} P
   * @param {P} path
   * @returns {Promise<Answer<P, "get">>}
   */
  get(path) { return /** @type {Promise<Answer<P, "get">>} */ (this.request("GET", path)); }
  /**
   * @template {string} P
   * @param {P} path
   * @param {Body<P>} body
   * @returns {Promise<Answer<P, "post">>}
   */
  post(path, body) { return /** @type {Promise<Answer<P, "post">>} */ (this.request("POST", path, body || {})); }
  /**
   * The battle drawn (SVG text), with an attacker's targets, a target's line made with the player's choices.
   * @param {string | null | undefined} attacker
   * @param {string | null | undefined} target
   * @param {Record<string, unknown>} [choices]
   * @returns {Promise<string>}
   */
  drawing(attacker, target, choices = {}) {
    const q = new URLSearchParams();
    if (attacker) q.set("attacker", attacker);
    if (target) q.set("target", target);
    if (Object.keys(choices).length) q.set("choices", JSON.stringify(choices));
    const tail = q.toString() ? `?${q}` : "";
    return /** @type {Promise<string>} */ (this.request("GET", `/drawing.svg${tail}`, undefined, "image/svg+xml"));
  }
  eventsUrl() { return `${this.base}/events?token=${encodeURIComponent(this.token || "")}`; }
}
