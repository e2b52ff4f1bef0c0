import type { Io } from "../../src/main.js";

/**
 * An Io that records everything (files included, by absolute path) instead of writing to the
 * process; relative paths are taken from `baseDir`.
 */
export function memoryIo(
  baseDir = "/sim-user-dir",
): Io & { out: string; err: string; files: Map<string, string> } {
  const io = {
    out: "",
    err: "",
    files: new Map<string, string>(),
    stderrIsTTY: false,
    baseDir,
    stdout(s: string) {
      io.out += s;
    },
    stderr(s: string) {
      io.err += s;
    },
    writeFile(path: string, data: string) {
      io.files.set(path, data);
    },
    now: () => 0,
  };
  return io;
}
