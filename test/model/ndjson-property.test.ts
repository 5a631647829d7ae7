/**
 * Properties of Ollama's streamed reply as OllamaModel reads it (loopback socket, chunked
 * framing, UTF-8 decoding, newline-delimited JSON): however the wire cuts a real example, the
 * reply is the same; whatever bytes come, the answer is a reply or a ModelError, in time.
 */
import fc from "fast-check";
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { OllamaModel } from "../../src/model/ollama.ts";
import type { ModelRequest } from "../../src/protocol/model.ts";
import { FIXTURES } from "../helpers/fake-server.ts";
import { startByteServer, type ByteScene } from "../helpers/byte-server.ts";
import { DEADLINE_MS, NDJSON_FRAMING, brokenScene, expectNamedOutcome, optionsFor, outcomeOf, splitArbitrary, splitScene, wholeScene, type Outcome } from "../helpers/stream-property.ts";
import { settings } from "../helpers/property.ts";

const NDJSON = "application/x-ndjson";
const EXAMPLES = join(FIXTURES, "ollama-ndjson");
const BODIES = new Map(
  readdirSync(EXAMPLES)
    .filter((name) => name.endsWith(".ndjson"))
    .sort()
    .map((name) => [name, new Uint8Array(readFileSync(join(EXAMPLES, name)))] as const),
);

const request = (signal: AbortSignal): ModelRequest => ({
  messages: [{ role: "user", content: "Read the notes." }],
  tools: [{ name: "read_file", description: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }],
  signal,
});

let scene: ByteScene = { writes: [], after: "end" };
const server = startByteServer(() => scene);
afterAll(() => server.stop());

async function play(next: ByteScene): Promise<Outcome> {
  scene = next;
  return outcomeOf(new OllamaModel("ollama:qwen2.5:1.5b", "qwen2.5:1.5b", server.url, optionsFor(next)), request, DEADLINE_MS);
}

describe("Ollama's stream, as the wire may cut it", () => {
  // Each one's reply sent whole, asked once: what every split of it must give.
  const whole = new Map<string, Outcome>();
  const wholeOutcome = async (name: string) => {
    if (!whole.has(name)) whole.set(name, await play(wholeScene(NDJSON, BODIES.get(name)!)));
    return whole.get(name)!;
  };

  test("every example, sent whole, gives its reply (the baseline)", async () => {
    expect(BODIES.size).toBeGreaterThanOrEqual(6);
    for (const name of BODIES.keys()) await wholeOutcome(name);
    for (const [name, outcome] of whole) {
      if (name.startsWith("06-")) expect(outcome.error?.message).toContain("reported an error mid-reply");
      else {
        expect(outcome.error).toBeNull();
        expect(outcome.reply.finish_reason).not.toBeNull();
        expect(outcome.reply.prompt_tokens).not.toBeNull();
      }
    }
  });

  test("an example split anywhere (chunks, packets, inside a line) gives the same reply as whole", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...BODIES.keys()), splitArbitrary, async (name, split) => {
        const expected = await wholeOutcome(name);
        expect(await play(splitScene(NDJSON, BODIES.get(name)!, split))).toEqual(expected);
      }),
      settings(40_201, 50, 20_000),
    );
  }, 30_000);
});

describe("Ollama's stream, when the bytes are wrong", () => {
  test("any bytes give a reply or a ModelError with a reason, never another throw and never a hang", async () => {
    await fc.assert(
      fc.asyncProperty(brokenScene(NDJSON, NDJSON_FRAMING, [...BODIES.values()]), async ({ scene: broken }) => {
        expectNamedOutcome(await play(broken));
      }),
      settings(40_202, 80, 20_000),
    );
  }, 30_000);
});
