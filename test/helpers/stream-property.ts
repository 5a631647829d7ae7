/**
 * What the property tests of the two streamed readers (llama.cpp's SSE, Ollama's NDJSON) share:
 * a reply played as raw bytes, collected under a deadline, and reduced to what the run keeps of
 * it (the assembled reply, or the error's kind and words).
 */
import fc from "fast-check";
import { Buffer } from "node:buffer";
import { expect } from "bun:test";
import { ModelError, type ModelClient, type ModelDelta, type ModelRequest } from "../../src/protocol/model.ts";
import { ModelOptionsSchema, type ModelOptions } from "../../src/model/options.ts";
import { assembled } from "./model.ts";
import { bytes, chunked, concat, head, splitAt, type ByteScene } from "./byte-server.ts";

export interface Outcome {
  reply: ReturnType<typeof assembled>;
  error: { kind: string; message: string; status?: string } | null;
  /** Deltas whose fields are not of their declared types (a number for text, a string for a count), described. */
  malformed: string[];
}

const text = (value: unknown) => typeof value === "string";
const optionalText = (value: unknown) => value === undefined || typeof value === "string";
const count = (value: unknown) => typeof value === "number" && Number.isFinite(value) && value >= 0;
const optionalCount = (value: unknown) => value === undefined || value === null || count(value);

/** What is wrong with a delta's fields, or null: the types ModelDelta declares, which everything after the reader trusts. */
export function malformedDelta(delta: ModelDelta): string | null {
  const fine = (() => {
    switch (delta.type) {
      case "text":
      case "thinking":
        return text(delta.text);
      case "tool_call":
        return Number.isInteger(delta.index) && delta.index >= 0 && optionalText(delta.id) && optionalText(delta.name);
      case "usage":
        return count(delta.prompt_tokens) && count(delta.gen_tokens) && optionalCount(delta.tokens_per_second) && optionalCount(delta.cached_tokens) && optionalCount(delta.prefill_ms);
      case "done":
        return delta.finish_reason === null || text(delta.finish_reason);
      default:
        return true;
    }
  })();
  return fine ? null : JSON.stringify(delta).slice(0, 200);
}

/**
 * The deltas of one reply, assembled, within `ms`: a reader that neither ends nor fails by then
 * has hung, and the property fails saying so.
 */
export async function outcomeOf(model: ModelClient, request: (signal: AbortSignal) => ModelRequest, ms: number): Promise<Outcome> {
  const stop = new AbortController();
  const deltas: Parameters<typeof assembled>[0] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reading = (async (): Promise<Outcome["error"]> => {
    try {
      for await (const delta of model.reply(request(stop.signal))) deltas.push(delta);
      return null;
    } catch (error) {
      if (error instanceof ModelError) return { kind: "ModelError", message: error.message, status: error.status };
      return { kind: (error as Error)?.constructor?.name ?? typeof error, message: String((error as Error)?.message ?? error) };
    }
  })();
  const deadline = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), ms)));
  const error = await Promise.race([reading, deadline]);
  clearTimeout(timer);
  if (error === "hung") {
    stop.abort();
    throw new Error(`the reply neither ended nor failed within ${ms} ms: the reader hung`);
  }
  return { reply: assembled(deltas), error, malformed: deltas.map(malformedDelta).filter((problem) => problem !== null) };
}

/**
 * Options for a reply to `scene`. A server that closes the connection must get an answer long
 * before a timeout could be what ended it (both are 10 s; the deadline is 2 s); one that goes
 * silent (`hang`) gets short ones, the wait for a first byte of the body included where the
 * options have it.
 */
export function optionsFor(scene: ByteScene): ModelOptions {
  const seconds = scene.after === "hang" ? 0.2 : 10;
  const shape = ModelOptionsSchema.shape;
  // Never sent again: a reply broken in a way that looks like a restarting server would be retried for seconds.
  const reconnect = "reconnect_seconds" in shape ? { reconnect_seconds: 0 } : {};
  const firstByte = "first_byte_timeout_seconds" in shape ? { first_byte_timeout_seconds: seconds } : {};
  return ModelOptionsSchema.parse({ idle_timeout_seconds: seconds, ...firstByte, ...reconnect });
}

/** How long a reply may take before the reader counts as hung. */
export const DEADLINE_MS = 2000;

/** Whatever the bytes were: a reply of well-typed deltas, or a ModelError with a reason; never another throw. */
export function expectNamedOutcome(outcome: Outcome): void {
  expect(outcome.malformed).toEqual([]);
  if (!outcome.error) return;
  expect(outcome.error.kind).toBe("ModelError");
  expect(outcome.error.message.trim().length).toBeGreaterThan(0);
  expect(["model_error", "context_limit"]).toContain(outcome.error.status!);
}

/** The 200 head a streaming server sends before its body. */
export function streamHead(contentType: string, framing: "chunked" | "close" = "chunked"): Uint8Array {
  return head(200, { "Content-Type": contentType, ...(framing === "chunked" ? { "Transfer-Encoding": "chunked" } : {}), Connection: "close" });
}

/** A capture's body sent whole: one chunk, one write. */
export function wholeScene(contentType: string, body: Uint8Array): ByteScene {
  return { writes: [concat([streamHead(contentType), chunked(body)])], after: "end" };
}

/**
 * Where to cut a stretch of bytes: anywhere (folded onto its length), or right before one of its
 * marks: a line break (where events and lines end), a UTF-8 continuation byte (inside a
 * character that is not ASCII) or a colon (inside a field or a key). A reader that forgets what
 * it had read is caught there, where random offsets alone would seldom land.
 */
export type Cut = { any: number } | { before: Mark; index: number; shift: number };
type Mark = "break" | "utf8" | "colon";

export const cutArbitrary: fc.Arbitrary<Cut> = fc.oneof(
  fc.record({ any: fc.integer({ min: 1, max: 1 << 20 }) }),
  fc.record({ before: fc.constantFrom<Mark>("break", "utf8", "colon"), index: fc.nat(), shift: fc.constantFrom(0, 0, 1, -1) }),
);

const IS_MARK: Record<Mark, (byte: number) => boolean> = {
  break: (byte) => byte === 0x0a || byte === 0x0d,
  utf8: (byte) => byte >= 0x80 && byte < 0xc0,
  colon: (byte) => byte === 0x3a,
};
const marksOf = new WeakMap<Uint8Array, Map<Mark, number[]>>();

function marks(data: Uint8Array, mark: Mark): number[] {
  let byMark = marksOf.get(data);
  if (!byMark) marksOf.set(data, (byMark = new Map()));
  let found = byMark.get(mark);
  if (!found) {
    found = [];
    for (let i = 0; i < data.length; i++) if (IS_MARK[mark](data[i]!)) found.push(i);
    byMark.set(mark, found);
  }
  return found;
}

/** The offset `cut` names in `data`: always inside it (never 0 or its length, unless it is that short). */
export function cutAt(cut: Cut, data: Uint8Array): number {
  if (data.length < 2) return 0;
  let at = "any" in cut ? cut.any : cut.index;
  if (!("any" in cut)) {
    const found = marks(data, cut.before);
    if (found.length) at = found[cut.index % found.length]! + cut.shift;
  }
  return 1 + ((((at - 1) % (data.length - 1)) + (data.length - 1)) % (data.length - 1));
}

/** How to take a body apart: where its chunks end, and where the raw response (head, framing and all) is cut into writes. */
export interface Split {
  chunkCuts: Cut[];
  writeCuts: Cut[];
}

/**
 * The pause after each write: long enough that the next one arrives in a read of its own (the
 * readers read at most once every READ_INTERVAL_MS = 16 ms), so every cut reaches the parsers.
 */
const PAUSE_MS = 20;

export const splitArbitrary: fc.Arbitrary<Split> = fc.record({
  chunkCuts: fc.array(cutArbitrary, { maxLength: 12 }),
  writeCuts: fc.array(cutArbitrary, { maxLength: 3 }),
});

/** The body sent as `split` says: in chunks ending at its chunk cuts, the raw bytes written in pieces with a pause between. */
export function splitScene(contentType: string, body: Uint8Array, split: Split): ByteScene {
  const raw = concat([streamHead(contentType), chunked(body, split.chunkCuts.map((cut) => cutAt(cut, body)))]);
  const pieces = splitAt(raw, split.writeCuts.map((cut) => cutAt(cut, raw)));
  return { writes: pieces.flatMap((piece, index) => (index ? [PAUSE_MS, piece] : [piece])), after: "end" };
}

/** Every path to a value inside `value`, itself ([]) included. */
function pathsIn(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  const inner = value !== null && typeof value === "object" ? Object.entries(value).flatMap(([key, item]) => pathsIn(item, [...path, Array.isArray(value) ? Number(key) : key])) : [];
  return [path, ...inner];
}

function replacedAt(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (!path.length) return replacement;
  const [key, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[key!] = replacedAt(copy[key!], rest, replacement);
  return copy;
}

/**
 * The units of a body that carry one JSON value each (an SSE event's `data:`, an NDJSON line),
 * with how to write a value back in one's place.
 */
export interface Framing {
  units(body: string): string[];
  /** The JSON a unit carries, or null when it carries none. */
  json(unit: string): string | null;
  unit(json: string): string;
}

export const SSE_FRAMING: Framing = {
  units: (body) => body.split(/(?<=\n\n)/),
  json: (unit) => (unit.startsWith("data: {") ? unit.slice(6).trimEnd() : null),
  unit: (json) => `data: ${json}\n\n`,
};

export const NDJSON_FRAMING: Framing = {
  units: (body) => body.split(/(?<=\n)/),
  json: (unit) => (unit.trim() ? unit.trim() : null),
  unit: (json) => `${json}\n`,
};

/**
 * A real capture where one unit's JSON has a value of any shape in place of one of its own
 * (a null for an object, a number for a list, a string for an object…), or where a unit of any
 * JSON at all is added: what a server of another version, or a proxy, may send.
 */
function reshapedCapture(framing: Framing, captures: Uint8Array[]): fc.Arbitrary<Uint8Array> {
  const decoder = new TextDecoder();
  const units = captures.map((capture) => framing.units(decoder.decode(capture)));
  const anyJson = fc.jsonValue({ maxDepth: 3 });
  const replaced = fc.tuple(fc.nat(units.length - 1), fc.nat(), fc.nat(), anyJson).map(([which, unitIndex, pathIndex, replacement]) => {
    const list = [...units[which]!];
    const carrying = list.flatMap((unit, index) => (framing.json(unit) !== null ? [index] : []));
    const at = carrying[unitIndex % carrying.length]!;
    const value = JSON.parse(framing.json(list[at]!)!);
    const paths = pathsIn(value);
    list[at] = framing.unit(JSON.stringify(replacedAt(value, paths[pathIndex % paths.length]!, replacement)));
    return list.join("");
  });
  const added = fc.tuple(fc.nat(units.length - 1), fc.nat(), anyJson).map(([which, index, extra]) => {
    const list = [...units[which]!];
    list.splice(index % (list.length + 1), 0, framing.unit(JSON.stringify(extra)));
    return list.join("");
  });
  return fc.oneof(replaced, added).map((body) => bytes(body));
}

/** Bytes that are no reply at all, or a reply broken in one of the ways a wire breaks one. */
export function brokenScene(contentType: string, framing: Framing, captures: Uint8Array[]): fc.Arbitrary<{ scene: ByteScene; hang: boolean }> {
  const noise = fc.uint8Array({ maxLength: 600 });
  const capture = fc.constantFrom(...captures);
  const asBody = (body: Uint8Array, cuts: Cut[]) => concat([streamHead(contentType), chunked(body, cuts.map((cut) => cutAt(cut, body)))]);
  const raw = fc.oneof(
    // Not HTTP at all.
    noise,
    // A head, then noise where the chunked framing should be.
    noise.map((rest) => concat([streamHead(contentType), rest])),
    // A head, then noise in good framing, or to the connection's end.
    fc.tuple(noise, fc.array(cutArbitrary, { maxLength: 6 })).map(([body, cuts]) => asBody(body, cuts)),
    noise.map((body) => concat([streamHead(contentType, "close"), body])),
    // A status of any kind, with noise after it.
    fc.tuple(fc.integer({ min: 0, max: 999 }), fc.constantFrom("application/json", "text/plain", contentType), noise).map(([status, type, body]) =>
      concat([bytes(`HTTP/1.1 ${String(status).padStart(3, "0")} X\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`), body]),
    ),
    // A real capture with a few of its bytes changed.
    fc.tuple(capture, fc.array(fc.tuple(cutArbitrary, fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), fc.array(cutArbitrary, { maxLength: 6 })).map(([body, changes, cuts]) => {
      const changed = new Uint8Array(body);
      for (const [cut, value] of changes) changed[cutAt(cut, body)] = value;
      return asBody(changed, cuts);
    }),
    // A real capture cut short anywhere, the connection then closed.
    fc.tuple(capture, cutArbitrary).map(([body, cut]) => {
      const whole = asBody(body, [] as Cut[]);
      return whole.subarray(0, cutAt(cut, whole));
    }),
    // A real capture whose JSON has a value of another shape somewhere.
    fc.tuple(reshapedCapture(framing, captures), fc.array(cutArbitrary, { maxLength: 6 })).map(([body, cuts]) => asBody(body, cuts)),
    // A real capture with noise spliced in.
    fc.tuple(capture, cutArbitrary, noise).map(([body, cut, extra]) => {
      const at = cutAt(cut, body);
      return asBody(concat([body.subarray(0, at), extra, body.subarray(at)]), [] as Cut[]);
    }),
  );
  return fc
    .tuple(raw, fc.array(cutArbitrary, { maxLength: 3 }), fc.oneof({ arbitrary: fc.constant(false), weight: 15 }, { arbitrary: fc.constant(true), weight: 1 }))
    .map(([data, cuts, hang]) => {
      const scene: ByteScene = { writes: splitAt(data, cuts.map((cut) => cutAt(cut, data))), after: hang ? "hang" : "end" };
      // A counterexample is printed as the bytes read as Latin-1, one string per write.
      return { scene, hang, [fc.toStringMethod]: () => JSON.stringify({ writes: scene.writes.map((write) => Buffer.from(write as Uint8Array).toString("latin1")), after: scene.after }) };
    });
}
