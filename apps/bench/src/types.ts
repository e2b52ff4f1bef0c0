/** One measured line of a case: an implementation in a scenario, or a "not available" placeholder. */
export interface Row {
  /** Stable id inside its case (`resil-trycheck`, `floor`, ...), used by the targets and the README. */
  id: string;
  /** Human label printed in the table. */
  label: string;
  /** Unit of `median`/`min`/`max`: lower is better for ns/op and bytes/key. */
  unit:
    | "ns/op"
    | "ns overhead"
    | "bytes/key"
    | "cmds/s"
    | "req/s"
    | "% of a core"
    | "x baseline"
    | "per request"
    | "key-syncs/s"
    | "ms";
  /** Median of the samples; null when the row is not available. */
  median: number | null;
  min: number | null;
  max: number | null;
  samples: number;
  /** Interquartile range over the median, in percent. */
  spreadPct: number | null;
  /** True when the spread is wide enough that the median should be read with care. */
  wide: boolean;
  available: boolean;
  /** Why a row is not available, or anything the reader must know about it. */
  note?: string;
  /** The raw samples, in run order. */
  values?: number[];
}

export interface CaseResult {
  case: string;
  title: string;
  /** What is being compared, one line. */
  description: string;
  rows: Row[];
  durationMs: number;
  /** Set when the case process itself failed (then `rows` may be empty). */
  error?: string;
}

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  platform: string;
  arch: string;
  memGiB: number;
}

export interface Target {
  name: string;
  /** The goal, in words ("<= 2x", ">= 5x", ...). */
  goal: string;
  /** The measured ratio, null when an input row is missing. */
  ratio: number | null;
  met: boolean | null;
  /** How the ratio was computed (which rows). */
  from: string;
  /** The unit of an absolute figure (shown instead of "x"). */
  unit?: string;
}

export interface BenchFile {
  version: 1;
  mode: "full" | "smoke";
  generatedAt: string;
  machine: Machine;
  totalMs: number;
  /** 1-minute load average when the run started and when it ended (the host may be shared). */
  loadAvg: [number, number];
  cases: CaseResult[];
  targets: Target[];
}

/** A scenario: run in its own process, it returns its rows. */
export interface BenchCase {
  name: string;
  title: string;
  description: string;
  run(opts: RunOptions): Promise<Row[]>;
}

export interface RunOptions {
  smoke: boolean;
}
