/** The HTTP case's keys: "a<i>" admitted (huge limit), "d<i>" denied (1 an hour, spent before the run). */
export function httpKeys(count: number, deny: boolean): string[] {
  const keys: string[] = new Array(count);
  for (let i = 0; i < count; i++) keys[i] = deny && i % 10 !== 0 ? `d${i}` : `a${i}`;
  return keys;
}

/** The limit of the admitted keys: never reached. */
export const ADMIT_LIMIT = 2_000_000_000;

/** The OpenAI-style 429 body every variant answers with (the peers are given the same bytes). */
export const BODY_429 =
  '{"error":{"message":"Rate limit exceeded","type":"rate_limit_error","code":"rate_limit_exceeded"}}';

/** One scenario the server is configured for. */
export interface Scenario {
  keys: number;
  deny: boolean;
  /** Unique per scenario: store key prefixes never collide between scenarios. */
  tag: string;
  /** How long no key may sync before the setup counts as drained (default 2 s). */
  quietMs?: number;
  /** The setup also waits until no key holds an admit the store has not seen (default true). */
  awaitPushes?: boolean;
}
