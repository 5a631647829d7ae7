import { describe, expect, test } from "bun:test";
import { recoverTextCalls } from "../../src/model/text-calls/index.ts";

const OFFERED = [{ name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }];

/** How long recovering the calls of `text` took, in milliseconds, and what it found. */
function timed(text: string) {
  const started = performance.now();
  const recovered = recoverTextCalls(text, OFFERED);
  return { ms: performance.now() - started, recovered };
}

describe("text calls in hostile replies: no recursion, no quadratic time", () => {
  test("80 KB of lines that each open a list: one parse, not one per line", () => {
    const { ms, recovered } = timed("[\n".repeat(40_000) + "]");
    expect(recovered).toBeNull();
    expect(ms).toBeLessThan(1_000);
  });

  test("a JSON call after prose lines that open brackets is still found where it starts", () => {
    const text = "Some notes:\n[draft]\n{not json\n" + JSON.stringify({ name: "read_file", arguments: { path: "a.ts" } }, null, 2);
    const recovered = recoverTextCalls(text, OFFERED);
    expect(recovered).toMatchObject({ form: "json", prose: "Some notes:\n[draft]\n{not json", calls: [{ name: "read_file", arguments: { path: "a.ts" } }] });
  });

  test("a JSON call whose strings hold brackets, quotes and backslashes", () => {
    const args = { path: 'a"]}\\', note: "[{\\\"" };
    const recovered = recoverTextCalls(`Reading it.\n${JSON.stringify({ name: "read_file", arguments: args })}`, OFFERED);
    expect(recovered?.calls).toEqual([{ name: "read_file", arguments: args }]);
  });

  test("JSON that begins inside a line of prose stays text", () => {
    expect(recoverTextCalls(`Call it like this: ${JSON.stringify({ name: "read_file", arguments: { path: "a" } })}`, OFFERED)).toBeNull();
  });

  test("20,000 [TOOL_CALLS] markers: the segments are read once", () => {
    const { ms, recovered } = timed("[TOOL_CALLS]".repeat(20_000));
    expect(recovered).toBeNull();
    expect(ms).toBeLessThan(1_000);
  });

  test("mistral calls after a marker that holds no call start at the first marker of the calls", () => {
    const calls = '[TOOL_CALLS]read_file[ARGS]{"path": "a.ts"}[TOOL_CALLS]read_file[ARGS]{"path": "b.ts"}';
    const text = `Before [TOOL_CALLS] nothing here\n${calls}`;
    const recovered = recoverTextCalls(text, OFFERED);
    expect(recovered).toMatchObject({ form: "mistral", calls: [{ arguments: { path: "a.ts" } }, { arguments: { path: "b.ts" } }] });
    expect(recovered!.prose).toBe("Before [TOOL_CALLS] nothing here");
  });

  test("a [TOOL_CALLS] segment that is no call ends the calls: only those after it are taken", () => {
    const text = '[TOOL_CALLS]read_file[ARGS]{"path": "a.ts"}\n[TOOL_CALLS] not a call\n[TOOL_CALLS]read_file[ARGS]{"path": "b.ts"}';
    const recovered = recoverTextCalls(text, OFFERED);
    expect(recovered?.calls).toEqual([{ name: "read_file", arguments: { path: "b.ts" } }]);
    expect(recovered!.prose).toBe('[TOOL_CALLS]read_file[ARGS]{"path": "a.ts"}\n[TOOL_CALLS] not a call');
  });

  test("a call whose arguments nest 200 KB deep is recovered as a value without overflowing (the run refuses it)", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const { recovered } = timed(`{"name": "read_file", "arguments": {"path": ${deep}}}`);
    expect(recovered?.calls[0]?.name).toBe("read_file");
  });
});
