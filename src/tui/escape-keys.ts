/**
 * Esc and a control key read in one chunk ("\x1b\x03": Esc then Ctrl-C typed quickly, or read late
 * by a busy machine) are two keys. blessed's key reader takes "\x1b" and the next character as one
 * Alt key, finds no name for Alt with a control key, and drops both: the overlay stays open and
 * Ctrl-C does nothing. Cut such chunks before blessed reads them. Alt+Backspace ("\x1b\b") and the
 * characters blessed already splits off ("\r", "\n") are left as they are.
 */

const ESC = 0x1b;

/** Where a control byte follows Esc and blessed would drop both: the split points. */
function splitPoints(chunk: Uint8Array): number[] {
  const points: number[] = [];
  for (let at = chunk.indexOf(ESC); at !== -1 && at + 1 < chunk.length; at = chunk.indexOf(ESC, at + 1)) {
    const next = chunk[at + 1]!;
    if (next < 0x1b && next !== 0x08 && next !== 0x0a && next !== 0x0d) points.push(at + 1);
  }
  return points;
}

/** The chunk cut after every Esc that a control byte follows. */
export function escapePieces(chunk: Buffer): Buffer[] {
  const points = splitPoints(chunk);
  if (points.length === 0) return [chunk];
  return [0, ...points].map((start, index) => chunk.subarray(start, points[index] ?? chunk.length));
}

/** Every reader of the terminal's input (blessed's key reader among them) gets such chunks in pieces. */
export function separateEscapeKeys(input: NodeJS.EventEmitter): void {
  for (const listener of input.listeners("data") as Array<(chunk: unknown) => void>) {
    input.off("data", listener);
    input.on("data", (chunk: unknown) => {
      if (!Buffer.isBuffer(chunk)) return listener(chunk);
      for (const piece of escapePieces(chunk)) listener(piece);
    });
  }
}
