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

// A probability for people, as the command line prints it (rangefire.core.numbers.percent): exactly 0 and 1 as
// "0%" and "100%", tenths of a percent rounded exactly (half to even), and a chance that would round to either
// as "<0.1%" or ">99.9%".
export function percent(f) {
  if (f.num === 0n) return "0%";
  if (f.num === f.den) return "100%";
  const scaled = f.num * 1000n;
  const whole = scaled / f.den;
  const twice = 2n * (scaled % f.den);
  const tenths = twice > f.den || (twice === f.den && whole % 2n === 1n) ? whole + 1n : whole;
  if (tenths === 0n) return "<0.1%";
  if (tenths === 1000n) return ">99.9%";
  return `${tenths / 10n}.${tenths % 10n}%`;
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
