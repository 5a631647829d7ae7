import { serverLabel, type Candidate, type Discovery } from "../model/discovery.ts";
import { formatSize, silentServers, unusableFiles } from "../model/find-model.ts";
import { blessed, type Widgets } from "./blessed.ts";
import { safeTagged } from "./sanitize.ts";

/** Unusable files named at most: the rest are counted, so a folder of broken downloads cannot push the list away. */
const UNUSABLE_SHOWN = 3;

const KEYS_LINE = "{bold}↑ ↓{/bold} move   {bold}Enter{/bold} use it   {bold}r{/bold} ask again   {bold}Esc{/bold} close";

/**
 * The model picker: what answered on this machine (llama.cpp's loaded model, every Ollama model)
 * and the GGUF files found in the usual folders, with size and context length; arrows and Enter
 * choose. Everything a server or a file said is escaped.
 */
export class ModelPicker {
  private frame: Widgets.BoxElement | null = null;
  private discovery: Discovery | null = null;
  private selected = 0;
  private current: string | null = null;
  private done: ((candidate: Candidate | null) => void) | null = null;
  private asking = 0;

  constructor(
    private readonly screen: Widgets.Screen,
    private readonly onChange: () => void,
    /** Asks the servers again (r, and each time the picker opens). */
    private readonly ask: () => Promise<Discovery>,
  ) {}

  get open(): boolean {
    return this.frame !== null;
  }

  /** Opens with what `found` says, or asks the servers first; resolves with the choice, or null. */
  show(current: string | null, found?: Discovery): Promise<Candidate | null> {
    this.finish(null);
    this.current = current;
    this.frame = blessed.box({
      parent: this.screen,
      top: "center",
      left: "center",
      width: "80%",
      height: 3,
      border: "line",
      label: " choose a model ",
      tags: true,
      style: { border: { fg: "cyan" } },
    });
    this.frame.setFront();
    const result = new Promise<Candidate | null>((resolve) => (this.done = resolve));
    if (found) this.fill(found);
    else void this.refresh();
    return result;
  }

  /**
   * Keys while open: arrows, Enter, r, Esc. Any other character closes the picker and returns
   * false: it is text for the input line. Other keys are taken and ignored.
   */
  key(ch: string | undefined, name: string): boolean {
    if (!this.open) return false;
    const count = this.discovery?.candidates.length ?? 0;
    const moves: Record<string, number> = { up: -1, down: 1, pageup: -10, pagedown: 10, home: -count, end: count };
    if (name === "escape") this.finish(null);
    else if (name === "enter" || name === "return") {
      // Enter on an empty list asks again: the person may have just started a server.
      if (this.discovery && count === 0) void this.refresh();
      else if (this.discovery) this.finish(this.discovery.candidates[this.selected]!);
    } else if (name in moves) {
      if (count) this.selected = Math.max(0, Math.min(count - 1, this.selected + moves[name]!));
      this.draw();
    } else if (ch === "r") void this.refresh();
    else if (ch && ch >= " " && ch !== "\x7f") {
      this.finish(null);
      return false;
    }
    return true;
  }

  close(): void {
    this.finish(null);
  }

  private async refresh(): Promise<void> {
    const mine = ++this.asking;
    this.discovery = null;
    this.draw();
    const found = await this.ask();
    if (mine === this.asking && this.open) this.fill(found);
  }

  private fill(found: Discovery): void {
    this.discovery = found;
    // Start on the model in use, so Enter keeps it.
    this.selected = Math.max(0, found.candidates.findIndex((candidate) => candidate.spec === this.current));
    this.draw();
  }

  private draw(): void {
    if (!this.frame) return;
    // As tall as its text, up to the screen's height less a margin: a long list scrolls inside.
    const lines = pickerLines(this.discovery, this.selected, this.current, Math.max(3, (this.screen.height as number) - 6));
    this.frame.height = lines.length + 2;
    this.frame.setContent(lines.join("\n"));
    this.onChange();
  }

  private finish(result: Candidate | null): void {
    const done = this.done;
    this.done = null;
    this.asking++;
    this.frame?.destroy();
    this.frame = null;
    this.discovery = null;
    done?.(result);
    this.onChange();
  }
}

/** The picker's text in `room` rows: a window of the list that keeps the selected row in view. */
export function pickerLines(discovery: Discovery | null, selected: number, current: string | null, room: number): string[] {
  if (!discovery) return [" asking llama.cpp and Ollama on this machine which models they have, and looking for GGUF files…"];
  const silent = [...silentServers(discovery).map((line) => `no model from ${line}`), ...unusableLines(discovery)].map((line) => ` {gray-fg}${safeTagged(line)}{/gray-fg}`);
  const { candidates } = discovery;
  if (!candidates.length) {
    return [
      " {bold}No model answers.{/bold}",
      "",
      ...silent,
      "",
      " Start one: llama-server -m MODEL.gguf --jinja --port 8080, or ollama serve",
      " (and ollama pull qwen2.5:1.5b); or put a .gguf file in ~/models, which glassbox serves itself.",
      " Then press r to ask again. Esc closes; --model SPEC names one.",
    ];
  }
  const heading = " {bold}Which model?{/bold} The choice is remembered for this workspace (.glassbox/state.json).";
  const listRoom = Math.max(1, room - 6 - silent.length);
  const first = Math.min(Math.max(0, selected - listRoom + 1), Math.max(0, candidates.length - listRoom));
  const nameWidth = Math.min(40, Math.max(...candidates.map((candidate) => candidate.name.length)));
  const rows = candidates.slice(first, first + listRoom).map((candidate, index) => {
    const at = first + index;
    const name = candidate.name.length > nameWidth ? candidate.name.slice(0, nameWidth - 1) + "…" : candidate.name.padEnd(nameWidth);
    const details = [
      serverLabel(candidate.server).padEnd(9),
      (candidate.size ? formatSize(candidate.size) : "").padStart(7),
      `  ${candidate.contextLength ? `context ${candidate.contextLength}` : "context ?"}`,
      candidate.tools === false ? "  no tool calls" : "",
      candidate.spec === current ? "  (in use)" : "",
    ].join("");
    const row = `${at === selected ? "›" : " "} ${safeTagged(name)}  ${safeTagged(details)}`;
    return at === selected ? ` {inverse}${row}{/inverse}` : ` ${row}`;
  });
  const more = candidates.length > listRoom ? ` {gray-fg}${first + 1}–${first + rows.length} of ${candidates.length}{/gray-fg}` : "";
  return [heading, "", ...rows, ...(more ? [more] : []), ...(silent.length ? ["", ...silent] : []), "", ` ${KEYS_LINE}`];
}

/** The files that fail the header check, the first few by name with the reason. */
function unusableLines(discovery: Discovery): string[] {
  const lines = unusableFiles(discovery).map((line) => `not usable: ${line}`);
  if (lines.length <= UNUSABLE_SHOWN) return lines;
  return [...lines.slice(0, UNUSABLE_SHOWN), `and ${lines.length - UNUSABLE_SHOWN} more GGUF files that are not usable`];
}
