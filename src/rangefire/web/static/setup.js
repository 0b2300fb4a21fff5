// A battle in set-up (created empty, its sides placing their units before it starts, DC-10.4, AL-10.3, BU-9.3):
// a form for a new unit built from the game's own scenario schema (GET /api/rulesets/{key}/schema), its required
// fields each a control (a list where the schema gives the values, JSON where it wants a whole object); the unit is
// placed where the form says (by default the table's middle) and then dragged where it should stand; Ready says
// this side is done, and the battle starts once every side has said so.
import { h } from "./dom.js";

// The schema of one unit of the scenario, its references followed.
export function unitSchema(schema) {
  const resolve = (node) => {
    let n = node || {};
    for (let i = 0; i < 8 && n.$ref; i++) n = n.$ref.split("/").slice(1).reduce((o, k) => (o ? o[k] : null), schema) || {};
    return n;
  };
  const units = resolve(schema && schema.properties && schema.properties.units);
  return { unit: resolve(units.items), resolve };
}

function kindOf(prop, resolve) {
  const p = resolve(prop);
  if (Array.isArray(p.enum)) return "enum";
  const types = [p.type, ...(p.anyOf || []).map((a) => resolve(a).type)].filter(Boolean);
  if (types.includes("integer")) return "integer";
  if (types.includes("number")) return "number";
  if (types.includes("boolean")) return "boolean";
  if (types.length === 1 && types[0] === "string") return "string";
  return "json";
}

// The form's fields: every required property but the side (this page's own) and the position (its own field),
// then the game's other fields as one JSON object (optional: a Bushido model's weapon, a discipline modifier).
export function buildFields(host, schema, centre) {
  const { unit, resolve } = unitSchema(schema);
  const required = (unit.required || []).filter((k) => k !== "side");
  const fields = [];
  for (const name of required) {
    const prop = resolve((unit.properties || {})[name]);
    const id = `setup-${name}`;
    const kind = name === "position" ? "point" : kindOf(prop, resolve);
    let control;
    if (kind === "enum") control = h("select", { id, name }, ...prop.enum.map((v) => h("option", { value: v }, v)));
    else if (kind === "boolean") control = h("input", { id, name, type: "checkbox" });
    else {
      const value = kind === "point" ? centre.join(", ") : kind === "integer" || kind === "number"
        ? String(prop.default ?? prop.minimum ?? (name === "facing" ? 0 : 1)) : kind === "json" ? "" : "";
      control = h("input", { id, name, value, autocomplete: "off", required: kind !== "json",
                             inputmode: kind === "integer" || kind === "number" ? "decimal" : null,
                             placeholder: kind === "json" ? "JSON, e.g. {\"boxes\": 4}" : kind === "point" ? "x, y" : null });
    }
    fields.push({ name, kind, control, values: kind === "enum" ? prop.enum : null });
    host.append(h("div", { class: "field" }, h("label", { for: id }, name.replace(/_/g, " ")), control,
      prop.description ? h("p", { class: "help" }, prop.description) : null));
  }
  const others = Object.keys(unit.properties || {}).filter((k) => k !== "side" && !required.includes(k));
  if (others.length) {
    const control = h("textarea", { id: "setup-more", name: "more", rows: 2, spellcheck: "false", autocomplete: "off",
                                    placeholder: `JSON, e.g. {"${others[0]}": …}` });
    fields.push({ name: "more", kind: "more", control });
    host.append(h("details", { class: "field more-fields" }, h("summary", {}, "Other fields (optional)"),
      h("label", { for: "setup-more" }, "other fields, as JSON"), control,
      h("p", { class: "help" }, `Any of the game's other fields as one object: ${others.join(", ")}.`)));
  }
  return fields;
}

// The unit the form describes, as the scenario holds it (throws with the field's name for what does not read).
export function readFields(fields, side) {
  const data = { side };
  let more = {};
  for (const { name, kind, control, values } of fields) {
    const text = control.value.trim();
    if (kind === "boolean") data[name] = control.checked;
    else if (kind === "point") {
      const xy = text.split(/[\s,]+/).filter(Boolean).map(Number);
      if (xy.length !== 2 || !xy.every(Number.isFinite)) throw new Error(`${name}: two numbers, x and y`);
      data[name] = xy;
    } else if (kind === "integer" || kind === "number") {
      const n = Number(text);
      if (!text || !Number.isFinite(n)) throw new Error(`${name}: a number`);
      data[name] = n;
    } else if (kind === "json") {
      if (!text) throw new Error(`${name}: needed (JSON)`);
      try { data[name] = JSON.parse(text); } catch (exc) { throw new Error(`${name}: not JSON (${exc.message})`); }
    } else if (kind === "more") {
      if (!text) continue;
      try { more = JSON.parse(text); } catch (exc) { throw new Error(`other fields: not JSON (${exc.message})`); }
      if (!more || typeof more !== "object" || Array.isArray(more)) {
        throw new Error("other fields: one JSON object, {\"name\": value, …}");
      }
    } else if (kind === "enum") data[name] = (values || []).find((v) => String(v) === text) ?? text;  // 30, not "30"
    else data[name] = text;
  }
  return { ...more, ...data };
}

// The kinds of terrain the game's schema allows (its terrain items' `kind` enum), or [] where it has none.
export function terrainKinds(schema) {
  const { resolve } = unitSchema(schema);
  const terrain = resolve(schema && schema.properties && schema.properties.terrain);
  const item = resolve(terrain.items);
  const kind = resolve((item.properties || {}).kind);
  return Array.isArray(kind.enum) ? kind.enum.map(String) : [];
}

// A rectangle of terrain from its corner, width and depth, as the scenario holds it (throws naming the field).
export function terrainRect(id, kind, values) {
  if (!id) throw new Error("id: needed");
  const n = {};
  for (const name of ["x", "y", "width", "depth"]) {
    const text = String(values[name] ?? "").trim();
    const v = Number(text);
    if (!text || !Number.isFinite(v)) throw new Error(`${name}: a number`);
    if ((name === "width" || name === "depth") && v <= 0) throw new Error(`${name}: more than 0`);
    n[name] = v;
  }
  const { x, y, width, depth } = n;
  return { id, kind, polygon: [[x, y], [x + width, y], [x + width, y + depth], [x, y + depth]] };
}
