/** A response body as raw bytes or text. Only its first 4096 bytes are ever looked at. */
export type FailureBody = string | Uint8Array | ArrayBuffer;

/** How many leading bytes of a body the body rules read. */
export const BODY_SCAN_BYTES = 4096;

const decoder = new TextDecoder("utf-8", { fatal: false });
const encoder = new TextEncoder();

/**
 * The first 4096 bytes of `body`, decoded as UTF-8 (invalid sequences replaced) and ASCII-lowercased
 * (only A-Z change, so no other character can turn into a marker).
 */
export function bodyHead(body: FailureBody): string {
  let text: string;
  if (typeof body === "string") {
    // Each UTF-16 unit encodes to at most 3 bytes: a short string fits whole.
    text =
      body.length * 3 <= BODY_SCAN_BYTES
        ? body
        : decoder.decode(encoder.encode(body).subarray(0, BODY_SCAN_BYTES));
  } else {
    const bytes = body instanceof Uint8Array ? body : new Uint8Array(body);
    text = decoder.decode(bytes.subarray(0, BODY_SCAN_BYTES));
  }
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** Whether the head of `body` contains any of the (lowercase) `markers`. */
export function bodyHasMarker(body: FailureBody | undefined, markers: readonly string[]): boolean {
  if (body == null) return false;
  const head = bodyHead(body);
  return markers.some((m) => head.includes(m));
}
