/**
 * What the terminal sends, before blessed reads it. blessed parses keys only: a paste reaches it
 * as keys, its newlines as Enter (a three-line paste was sent as three messages), and Alt+Enter
 * (ESC CR) as nothing it knows. Here a bracketed paste (the terminal wraps it in ESC[200~ …
 * ESC[201~ once the mode is on) is taken out whole, Alt+Enter becomes a newline, and every other
 * byte goes on to blessed as before.
 */
import { EventEmitter } from "node:events";
import { StringDecoder } from "node:string_decoder";
import type { Widgets } from "../blessed.ts";

export const PASTE_START = "\x1b[200~";
export const PASTE_END = "\x1b[201~";
/** Alt+Enter: ESC then CR (xterm, tmux, most terminals); some send ESC LF. */
const ALT_ENTER = /\x1b[\r\n]/g;

export type InputPiece = { kind: "keys"; text: string } | { kind: "paste"; text: string } | { kind: "newline" };

/**
 * Splits the terminal's input into keys, pastes and Alt+Enters. Stateful across chunks: a big
 * paste arrives in several reads, and a marker may be cut between two.
 */
export class InputSplitter {
  private pasting: string | null = null;
  /** The start of a marker cut off at the end of the last chunk. */
  private carry = "";

  split(chunk: string): InputPiece[] {
    let text = this.carry + chunk;
    this.carry = "";
    const pieces: InputPiece[] = [];
    while (text) {
      if (this.pasting !== null) {
        const end = text.indexOf(PASTE_END);
        if (end === -1) {
          const kept = cutMarker(text, PASTE_END);
          this.pasting += text.slice(0, text.length - kept.length);
          this.carry = kept;
          break;
        }
        pieces.push({ kind: "paste", text: this.pasting + text.slice(0, end) });
        this.pasting = null;
        text = text.slice(end + PASTE_END.length);
        continue;
      }
      const start = text.indexOf(PASTE_START);
      const keys = start === -1 ? text : text.slice(0, start);
      const kept = start === -1 ? cutMarker(keys, PASTE_START) : "";
      keyPieces(keys.slice(0, keys.length - kept.length), pieces);
      this.carry = kept;
      if (start === -1) break;
      this.pasting = "";
      text = text.slice(start + PASTE_START.length);
    }
    return pieces;
  }
}

function keyPieces(keys: string, pieces: InputPiece[]): void {
  let from = 0;
  for (const match of keys.matchAll(ALT_ENTER)) {
    if (match.index > from) pieces.push({ kind: "keys", text: keys.slice(from, match.index) });
    pieces.push({ kind: "newline" });
    from = match.index + match[0].length;
  }
  if (from < keys.length) pieces.push({ kind: "keys", text: keys.slice(from) });
}

/**
 * The end of `text` that may be the start of `marker`, held back until the next chunk. At least
 * `ESC [ 2`: a lone ESC at the end of a read is the Esc key and must not wait.
 */
function cutMarker(text: string, marker: string): string {
  for (let length = Math.min(marker.length - 1, text.length); length >= 3; length--) {
    if (text.endsWith(marker.slice(0, length))) return text.slice(-length);
  }
  return "";
}

/**
 * The terminal's input as blessed sees it: standard input with pastes and Alt+Enter taken out
 * (emitted as "paste" and "newline"); everything else passes as "data". blessed is given this
 * object as its `input`, and calls the few stream methods below.
 */
export class RawInput extends EventEmitter {
  private readonly splitter = new InputSplitter();
  private readonly decoder = new StringDecoder("utf8");

  constructor(private readonly stdin: NodeJS.ReadStream = process.stdin) {
    super();
    stdin.on("data", (chunk: Buffer | string) => this.feed(typeof chunk === "string" ? chunk : this.decoder.write(chunk)));
  }

  get isTTY(): boolean {
    return Boolean(this.stdin.isTTY);
  }

  get isRaw(): boolean {
    return Boolean(this.stdin.isRaw);
  }

  setRawMode(mode: boolean): this {
    this.stdin.setRawMode?.(mode);
    return this;
  }

  resume(): this {
    this.stdin.resume();
    return this;
  }

  pause(): this {
    this.stdin.pause();
    return this;
  }

  /** In order, so a key typed before a paste is read before it. */
  feed(text: string): void {
    for (const piece of this.splitter.split(text)) {
      if (piece.kind === "keys") this.emit("data", Buffer.from(piece.text));
      else if (piece.kind === "paste") this.emit("paste", piece.text);
      else this.emit("newline");
    }
  }
}

/** Turns bracketed paste on with the screen and off when it goes (quit, crash, signal: every way out destroys the screen). */
export function bracketedPaste(screen: Widgets.Screen): void {
  const program = (screen as unknown as { program: { output: NodeJS.WriteStream } }).program;
  program.output.write("\x1b[?2004h");
  screen.once("destroy", () => program.output.write("\x1b[?2004l"));
}
