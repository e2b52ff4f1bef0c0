/** Where the progress bar draws, and the wall clock it reads (injectable for tests). */
export interface ProgressSink {
  write(s: string): void;
  now(): number;
}

/**
 * A one-line progress bar on stderr that appears only once a run has taken a second of wall time,
 * so short runs (and tests) print nothing.
 */
export class ProgressBar {
  private readonly started: number;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private drawn = false;

  constructor(
    private readonly sink: ProgressSink,
    private readonly label: string,
    private readonly enabled: boolean,
    private readonly delayMs = 1000,
  ) {
    this.started = sink.now();
  }

  update(fraction: number): void {
    if (!this.enabled) return;
    const now = this.sink.now();
    if (now - this.started < this.delayMs || now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.drawn = true;
    const width = 30;
    const f = Math.min(1, Math.max(0, fraction));
    const full = Math.round(f * width);
    this.sink.write(
      `\r[${"#".repeat(full)}${".".repeat(width - full)}] ${(f * 100).toFixed(0).padStart(3)}% ${this.label}`,
    );
  }

  /** Clears the bar's line if it was drawn. */
  done(): void {
    if (this.drawn) this.sink.write(`\r${" ".repeat(60 + this.label.length)}\r`);
    this.drawn = false;
  }
}
