/**
 * Esc and a key read in one chunk ("\x1b\x03": Esc then Ctrl-C typed quickly, or read late by a
 * busy machine) are two keys wherever blessed has no name for them together. blessed's key reader
 * takes "\x1b" and the next character as one Alt key, finds no name for Alt with a control key or
 * a punctuation mark, and drops both: the overlay stays open, Ctrl-C does nothing, a "/" is lost.
 * Cut such chunks before blessed reads them. What blessed names is left whole: Alt+letter or digit
 * (which is also what Esc then a letter looks like, and stays so), escape sequences ("\x1b[",
 * "\x1bO"), Alt+Esc, Alt+Space, Alt+Backspace, and "\r", "\n", which it splits off itself.
 */

const ESC = 0x1b;

/** The bytes after Esc that blessed reads as a key of their own with it. */
function namedAfterEsc(byte: number): boolean {
  const alphanumeric = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
  return alphanumeric || [0x5b, ESC, 0x20, 0x7f, 0x08, 0x0a, 0x0d].includes(byte);
}

/** Where a byte follows Esc that blessed would drop with it: the split points. */
function splitPoints(chunk: Uint8Array): number[] {
  const points: number[] = [];
  for (let at = chunk.indexOf(ESC); at !== -1 && at + 1 < chunk.length; at = chunk.indexOf(ESC, at + 1)) {
    if (!namedAfterEsc(chunk[at + 1]!)) points.push(at + 1);
  }
  return points;
}

/** The chunk cut after every Esc that a byte blessed cannot read with it follows. */
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
