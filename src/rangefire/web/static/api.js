// The HTTP API as the page calls it: the token read once from the URL fragment (#token=..., never sent to a
// server in a request or a Referer), kept in this tab's sessionStorage, and sent as a Bearer header; JSON in
// and out; every refusal an ApiError carrying the server's error body (kind, message, clause, refusals...).

export class ApiError extends Error {
  constructor(status, error) {
    super(error && error.message ? error.message : `the server answered ${status}`);
    this.status = status;
    this.error = error || {};
  }
}

export function battleIdFromPath(path = location.pathname) {
  const m = path.match(/^\/battle\/([^/]+)\/?$/);
  return m ? decodeURIComponent(m[1]) : null;
}

// The token of this battle: from the fragment when there is one (then taken off the address bar, so that it is
// not left on screen or in a bookmark), else the one this tab kept.
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
  constructor(battleId, token) {
    this.base = `/api/battles/${encodeURIComponent(battleId)}`;
    this.token = token;
    this.seen = null;  // the battle's count of actions as this page last read it
  }

  async request(method, path, body, accept = "application/json") {
    const headers = { Accept: accept };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const acting = method === "POST" && !path.startsWith("/api/") && !ASKING.has(path) && !(body && body.check);
    if (acting && this.seen !== null) headers["If-Match"] = `"${this.seen}"`;
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
    const data = await response.json();
    if (data && typeof data === "object" && !Array.isArray(data)) {
      if (path === "" && Number.isInteger(data.actions)) this.seen = data.actions;  // the state
      else if (acting && Number.isInteger(data.actions) && "battle" in data && "you" in data) this.seen = data.actions;
      else if (acting && Number.isInteger(data.action)) this.seen = data.action;  // the count after an action
    }
    return data;
  }

  get(path) { return this.request("GET", path); }
  post(path, body = {}) { return this.request("POST", path, body); }
  drawing(attacker, target, choices = {}) {
    const q = new URLSearchParams();
    if (attacker) q.set("attacker", attacker);
    if (target) q.set("target", target);
    if (Object.keys(choices).length) q.set("choices", JSON.stringify(choices));
    const tail = q.toString() ? `?${q}` : "";
    return this.request("GET", `/drawing.svg${tail}`, undefined, "image/svg+xml");
  }
  eventsUrl() { return `${this.base}/events?token=${encodeURIComponent(this.token || "")}`; }
}
