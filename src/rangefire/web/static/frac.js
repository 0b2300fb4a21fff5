// Exact fractions with BigInt, for the odds: the server sends each probability as "p/q" text; the page adds
// them ("at least N") without ever rounding, and rounds only the percentage it prints beside the fraction.

function gcd(a, b) {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

export function frac(num, den = 1n) {
  if (den < 0n) { num = -num; den = -den; }
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g };
}

// "3/8", "1", "0" -> a fraction; anything else is refused (a page never guesses at a number).
export function parseFrac(text) {
  const m = /^\s*(-?\d+)(?:\s*\/\s*(\d+))?\s*$/.exec(String(text));
  if (!m) throw new Error(`not a fraction: ${text}`);
  const den = m[2] === undefined ? 1n : BigInt(m[2]);
  if (den === 0n) throw new Error(`not a fraction: ${text}`);
  return frac(BigInt(m[1]), den);
}

export function add(a, b) { return frac(a.num * b.den + b.num * a.den, a.den * b.den); }

export const ZERO = frac(0n);

export function fracText(f) { return f.den === 1n ? String(f.num) : `${f.num}/${f.den}`; }

export function toNumber(f) {
  // exact enough for a bar's height and a percentage: scaled before dividing so huge terms do not overflow
  const scale = 10n ** 12n;
  return Number((f.num * scale) / f.den) / 1e12;
}

export function percent(f) {
  const p = toNumber(f) * 100;
  if (p > 0 && p < 0.1) return "<0.1%";
  if (p < 100 && p > 99.9) return ">99.9%";
  return `${p.toFixed(1)}%`;
}

// A distribution {value: "p/q"} as rows in the order of their values: exactly N and, where the values are
// numbers, at least N, both exact.
export function rows(distribution) {
  const items = Object.entries(distribution).map(([k, p]) => ({ value: Number(k), key: k, exactly: parseFrac(p) }));
  const numeric = items.every((item) => Number.isFinite(item.value));
  if (!numeric) return { items, numeric };
  items.sort((a, b) => a.value - b.value);
  let tail = ZERO;
  for (let i = items.length - 1; i >= 0; i--) {
    tail = add(tail, items[i].exactly);
    items[i].atLeast = tail;
  }
  return { items, numeric };
}
