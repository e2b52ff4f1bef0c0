// RFC 3339 date-times, as Anthropic sends for its rate-limit resets ("2026-11-30T22:10:00Z").
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS[month - 1]!;
}

/**
 * An RFC 3339 date-time in Unix ms, or undefined. Strict: every field in its calendar range (no
 * 30 February, no hour 24, offsets up to 23:59, nothing before 1970), `T`/`Z` in either case; a leap second (`:60`) reads
 * as the second before it. Never `Date.parse` on the raw text, which rolls impossible dates over.
 */
export function parseRfc3339Ms(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMin = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[7] === undefined ? 0 : Number(`0${m[7]}`) * 1000;
  const utc = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59));
  return utc + fraction - offsetMin * 60_000;
}
