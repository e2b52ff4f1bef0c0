import type { Io } from "../../src/main.js";

/** An Io that records everything (files included) instead of writing to the process. */
export function memoryIo(): Io & { out: string; err: string; files: Map<string, string> } {
  const io = {
    out: "",
    err: "",
    files: new Map<string, string>(),
    stderrIsTTY: false,
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
