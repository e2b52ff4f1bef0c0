import { type HeadersInput, readableHeader } from "./headers.js";
import { parseFloatStrict, parseI64Strict, parseUnsignedStrict } from "./numbers.js";

/** The longest delay hint believed: one hour. */
export const RETRY_AFTER_CAP_MS = 3_600_000;

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as Unix seconds, or undefined.
 *
 * Exactly six whitespace-separated tokens, the sixth `GMT`; the weekday is not checked; day 1..31;
 * month `Jan`..`Dec` (case-sensitive); a year; `h:m:s` with h <= 23, m <= 59, s <= 60. A date
 * before 1970 gives undefined. RFC 850 and asctime dates are not read.
 */
export function parseImfFixdate(s: string): number | undefined {
  const parts = s.trim().split(/\s+/);
  if (parts.length !== 6 || parts[5] !== "GMT") return undefined;
  const day = parseUnsignedStrict(parts[1]!);
  const monthIndex = MONTHS.indexOf(parts[2]!);
  const year = parseI64Strict(parts[3]!);
  const hms = parts[4]!.split(":").map(parseUnsignedStrict);
  if (day === undefined || monthIndex < 0 || year === undefined || hms.length !== 3) return undefined;
  const [h, m, sec] = hms;
  if (h === undefined || m === undefined || sec === undefined) return undefined;
  if (day < 1 || day > 31 || h > 23 || m > 59 || sec > 60) return undefined;
  const days = daysFromCivil(year, monthIndex + 1, day);
  if (days < 0) return undefined;
  return days * 86_400 + h * 3_600 + m * 60 + sec;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const mp = month <= 2 ? month + 9 : month - 3;
  const era = Math.trunc((y >= 0 ? y : y - 399) / 400);
  const yoe = y - era * 400;
  const doy = Math.trunc((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.trunc(yoe / 4) - Math.trunc(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/**
 * The upstream's delay hint in milliseconds, capped at one hour, or undefined when it gave none.
 *
 * 1. `retry-after-ms`: a float of milliseconds (fractions kept), when finite and >= 0; anything
 *    else there falls through to step 2.
 * 2. `Retry-After`: a float of seconds (finite and >= 0, else no hint and no date attempt), or an
 *    IMF-fixdate: the whole seconds from `nowMs` (truncated to a whole second, so the wait is
 *    never shorter than the true remainder) to that date, 0 for a past date.
 *
 * Numbers use a strict grammar (never JS `Number()` on the raw text: "" is not 0, "0x10" is not 16).
 * Never throws on any header value; throws a `RangeError` only for a non-finite `nowMs`.
 */
export function retryAfterMs(headers: HeadersInput, nowMs: number = Date.now()): number | undefined {
  if (!Number.isFinite(nowMs)) throw new RangeError(`retryAfterMs: nowMs must be finite, got ${nowMs}`);
  const msText = readableHeader(headers, "retry-after-ms");
  if (msText !== undefined) {
    const ms = parseFloatStrict(msText.trim());
    if (ms !== undefined && Number.isFinite(ms) && ms >= 0) return Math.min(ms, RETRY_AFTER_CAP_MS) + 0;
  }
  const raw = readableHeader(headers, "retry-after");
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const secs = parseFloatStrict(text);
  if (secs !== undefined) {
    return Number.isFinite(secs) && secs >= 0 ? Math.min(secs * 1000, RETRY_AFTER_CAP_MS) + 0 : undefined;
  }
  const at = parseImfFixdate(text);
  if (at === undefined) return undefined;
  const nowS = Math.floor(nowMs / 1000);
  return Math.min(Math.max(0, at - nowS), RETRY_AFTER_CAP_MS / 1000) * 1000;
}
