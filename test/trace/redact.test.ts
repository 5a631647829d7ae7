/**
 * The last line of defence (src/trace/redact.ts): a key read from the environment is replaced in
 * every file glassbox writes, wherever it turns up in the text: a server's error that echoes it,
 * a task that quotes it, a reply that repeats it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApiKey } from "../../src/model/access.ts";
import { RecordingModel } from "../../src/model/recorder.ts";
import { ScriptedModel } from "../../src/model/scripted.ts";
import { writeJson } from "../../src/eval/results.ts";
import { SavedSession } from "../../src/session/store.ts";
import { EventLog } from "../../src/trace/event-log.ts";
import { redact, registerSecret } from "../../src/trace/redact.ts";
import { WireLog } from "../../src/trace/wire-log.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { tempFolder } from "../helpers/workspace.ts";

const KEY = "sk-redact-test-5a6b7c8d9e";
// Read from the environment, a key becomes an ApiKey, which registers it.
new ApiKey(KEY, "GLASSBOX_API_KEY");

const echoed = `the server said: invalid Authorization "Bearer ${KEY}" (key ${KEY})`;

describe("redact", () => {
  test("every occurrence of a registered key becomes the placeholder; other text is untouched", () => {
    expect(redact(echoed)).toBe('the server said: invalid Authorization "Bearer [api key]" (key [api key])');
    expect(redact("nothing secret here")).toBe("nothing secret here");
  });

  test("several keys are all hunted; a value too short to tell from a word is not", () => {
    registerSecret("second-key-0000000000");
    registerSecret("abc");
    expect(redact(`${KEY} second-key-0000000000 abc`)).toBe("[api key] [api key] abc");
  });
});

describe("the files glassbox writes", () => {
  const event: AgentEvent = { kind: "stop", status: "model_error", reason: echoed, answer: "", steps: 1, tool_calls: 0, elapsed_ms: 0, prompt_tokens: 0, gen_tokens: 0 };
  const read = (path: string) => readFileSync(path, "utf8");

  test("the event log", () => {
    const path = join(tempFolder("redact"), ".glassbox", "runs", "run.jsonl");
    new EventLog(path).write(event);
    expect(read(path)).toContain("Bearer [api key]");
    expect(read(path)).not.toContain(KEY);
  });

  test("the wire log: a request quoting the key, and a response echoing it", () => {
    const path = join(tempFolder("redact"), "wire.jsonl");
    const wire = new WireLog(path);
    const seq = wire.request("https://gpu-box/v1/chat/completions", JSON.stringify({ messages: [{ role: "user", content: `use ${KEY}` }] }));
    wire.response({ seq, url: "https://gpu-box/v1/chat/completions", status: 400, ok: false, error: echoed });
    expect(read(path)).not.toContain(KEY);
    expect(read(path).match(/\[api key\]/g)).toHaveLength(3);
  });

  test("the saved session: its messages and events", async () => {
    const root = tempFolder("redact");
    const path = join(root, "session.jsonl");
    const session = new SavedSession("s1", path, root, () => 0);
    session.record.push({ role: "user", content: `my key is ${KEY}` });
    async function* events(): AsyncGenerator<AgentEvent> {
      yield event;
    }
    for await (const _ of session.save("r1", events()));
    expect(read(path)).toContain("my key is [api key]");
    expect(read(path)).not.toContain(KEY);
  });

  test("a recording of the replies", async () => {
    const file = join(tempFolder("redact"), "replies.json");
    const recording = new RecordingModel(new ScriptedModel("scripted", { replies: [{ content: `here it is: ${KEY}` }] }), file);
    for await (const _ of recording.reply({ messages: [], tools: [], signal: new AbortController().signal }));
    expect(read(file)).toContain("here it is: [api key]");
    expect(read(file)).not.toContain(KEY);
  });

  test("an eval's results", () => {
    const path = join(tempFolder("redact"), "results.json");
    writeJson(path, [{ task: "t", reason: echoed }]);
    expect(read(path)).not.toContain(KEY);
  });
});
