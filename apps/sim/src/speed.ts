/** The speed line: simulated seconds per wall second (printed on stderr, so stdout stays reproducible). */
export function speedLine(simulatedS: number, wallMs: number, what: string): string {
  const wallS = Math.max(wallMs, 0.001) / 1000;
  const rate = simulatedS / wallS;
  return `speed: ${simulatedS} simulated s in ${wallS.toFixed(2)} s wall = ${rate >= 100 ? rate.toFixed(0) : rate.toFixed(1)} simulated s per wall s (${what})`;
}
