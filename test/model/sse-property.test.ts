/**
 * Properties of llama.cpp's streamed reply as LlamaCppModel reads it (loopback socket, chunked
 * framing, UTF-8 decoding, Server-Sent Events): however the wire cuts a real capture, the reply is
 * the same; whatever bytes come, the answer is a reply or a ModelError, in time.
 */
import fc from "fast-check";
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { LlamaCppModel } from "../../src/model/llamacpp.ts";
import type { ModelRequest } from "../../src/protocol/model.ts";
import { FIXTURES } from "../helpers/fake-server.ts";
import { startByteServer, type ByteScene } from "../helpers/byte-server.ts";
import { DEADLINE_MS, SSE_FRAMING, brokenScene, expectNamedOutcome, optionsFor, outcomeOf, splitArbitrary, splitScene, wholeScene, type Outcome } from "../helpers/stream-property.ts";
import { settings } from "../helpers/property.ts";

const SSE = "text/event-stream";
const WIRE = join(FIXTURES, "llamacpp-wire");
const CAPTURES = readdirSync(WIRE)
  .filter((name) => name.endsWith(".sse"))
  .sort()
  .map((name) => ({ name, body: new Uint8Array(readFileSync(join(WIRE, name))) }));

const BODIES = new Map(CAPTURES.map((capture) => [capture.name, capture.body]));

const request = (signal: AbortSignal): ModelRequest => ({
  messages: [{ role: "user", content: "What is the weather in Paris?" }],
  tools: [{ name: "get_weather", description: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } }],
  signal,
});

let scene: ByteScene = { writes: [], after: "end" };
const server = startByteServer(() => scene);
afterAll(() => server.stop());

async function play(next: ByteScene): Promise<Outcome> {
  scene = next;
  return outcomeOf(new LlamaCppModel("llamacpp", server.url, optionsFor(next)), request, DEADLINE_MS);
}

describe("llama.cpp's stream, as the wire may cut it", () => {
  // Each one's reply sent whole, asked once: what every split of it must give.
  const whole = new Map<string, Outcome>();
  const wholeOutcome = async (name: string) => {
    if (!whole.has(name)) whole.set(name, await play(wholeScene(SSE, BODIES.get(name)!)));
    return whole.get(name)!;
  };

  test("every capture, sent whole, gives its reply (the baseline)", async () => {
    expect(CAPTURES.length).toBeGreaterThanOrEqual(8);
    for (const { name } of CAPTURES) await wholeOutcome(name);
    // The baseline is a real reply: text or calls, a finish reason, usage; the mid-stream error capture fails by name.
    for (const [name, outcome] of whole) {
      if (name.startsWith("12-")) expect(outcome.error?.message).toContain("reported an error mid-reply");
      else {
        expect(outcome.error).toBeNull();
        expect(outcome.reply.finish_reason).not.toBeNull();
        expect(outcome.reply.content.length + outcome.reply.tool_calls.length).toBeGreaterThan(0);
      }
    }
    expect([...whole.values()].some((outcome) => outcome.reply.prompt_tokens !== null)).toBe(true);
  });

  test("a capture split anywhere (chunks, packets, inside a UTF-8 character) gives the same reply as whole", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CAPTURES.map((capture) => capture.name)), splitArbitrary, async (name, split) => {
        const expected = await wholeOutcome(name);
        expect(await play(splitScene(SSE, BODIES.get(name)!, split))).toEqual(expected);
      }),
      settings(40_101, 50, 20_000),
    );
  }, 30_000);
});

describe("llama.cpp's stream, when the bytes are wrong", () => {
  test("any bytes give a reply or a ModelError with a reason, never another throw and never a hang", async () => {
    await fc.assert(
      fc.asyncProperty(brokenScene(SSE, SSE_FRAMING, CAPTURES.map((capture) => capture.body)), async ({ scene: broken }) => {
        expectNamedOutcome(await play(broken));
      }),
      settings(40_102, 80, 20_000),
    );
  }, 30_000);
});
