/** Resolves after `ms` of the real clock (the suites here run against real servers). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
