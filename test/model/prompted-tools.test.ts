import { expect, test } from "bun:test";
import { promptedMessages, resultTurn, toolsPrompt, writtenCall } from "../../src/model/prompted-tools.ts";
import { recoverTextCalls } from "../../src/model/text-calls/index.ts";
import type { Message } from "../../src/protocol/messages.ts";
import type { ToolDeclaration } from "../../src/protocol/model.ts";

const READ: ToolDeclaration = { name: "read_file", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const LIST: ToolDeclaration = { name: "list_files", description: "List files.", parameters: { type: "object", properties: {} } };

/** A record with every shape a run makes: calls, results, a nudge (a later system message), a user turn after a result. */
const RECORD: Message[] = [
  { role: "system", content: "You are glassbox." },
  { role: "user", content: "Read README.md." },
  { role: "assistant", content: "Reading it.", tool_calls: [{ id: "c1", name: "read_file", arguments: '{"path":"README.md"}' }, { id: "c2", name: "list_files", arguments: {} }] },
  { role: "tool", tool_call_id: "c1", name: "read_file", content: "# Hello" },
  { role: "tool", tool_call_id: "c2", name: "list_files", content: "README.md" },
  { role: "system", content: "You repeated a call." },
  { role: "assistant", content: "It says hello." },
  { role: "user", content: "Thanks." },
  { role: "user", content: "And list again." },
];

/** What Gemma 3's template insists on: after the one system message, user first, then strictly alternating. */
function alternates(messages: Message[]): boolean {
  const rest = messages[0]?.role === "system" ? messages.slice(1) : messages;
  return rest.every((message, index) => message.role === (index % 2 === 0 ? "user" : "assistant"));
}

test("after the one leading system message, roles alternate user/assistant, starting with the user; no tool roles, no later system messages", () => {
  const prompted = promptedMessages(RECORD, [READ, LIST]);
  expect(prompted.filter((message) => message.role === "system")).toHaveLength(1);
  expect(prompted[0]!.role).toBe("system");
  expect(alternates(prompted)).toBe(true);
  expect(prompted.some((message) => message.role === "tool" || (message.role === "assistant" && message.tool_calls))).toBe(false);
  expect(prompted.map((message) => message.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
});

test("nothing is lost: the system prompt then the tools, every call written in the assistant's text, every result and nudge in a user turn", () => {
  const prompted = promptedMessages(RECORD, [READ, LIST]);
  expect(prompted[0]!.content).toBe(`You are glassbox.\n\n${toolsPrompt([READ, LIST])}`);
  expect(prompted[2]!.content).toBe(`Reading it.\n${writtenCall("read_file", { path: "README.md" })}\n${writtenCall("list_files", {})}`);
  expect(prompted[3]!.content).toBe(`${resultTurn("read_file", "# Hello")}\n\n${resultTurn("list_files", "README.md")}\n\nYou repeated a call.`);
  expect(prompted[5]!.content).toBe("Thanks.\n\nAnd list again.");
});

test("the tools prompt names each tool with its description and schema, in the order offered", () => {
  const prompt = toolsPrompt([READ, LIST]);
  expect(prompt.indexOf("- read_file: Read a file.")).toBeGreaterThan(0);
  expect(prompt.indexOf("- list_files: List files.")).toBeGreaterThan(prompt.indexOf("- read_file"));
  expect(prompt).toContain(JSON.stringify(READ.parameters));
});

test("a call written the prompted way is read back by the text-call recovery, name and arguments alike", () => {
  const text = `Let me look.\n${writtenCall("read_file", '{"path":"src/a.ts"}')}`;
  const recovered = recoverTextCalls(text, [READ]);
  expect(recovered?.form).toBe("tool_call");
  expect(recovered?.prose).toBe("Let me look.");
  expect(recovered?.calls).toEqual([{ name: "read_file", arguments: { path: "src/a.ts" } }]);
});

test("no tools: the system prompt unchanged; no system message: none made up; a record opening with the assistant gets a user turn first", () => {
  expect(promptedMessages(RECORD.slice(0, 2), [])[0]).toEqual({ role: "system", content: "You are glassbox." });
  const bare = promptedMessages([{ role: "assistant", content: "Earlier." }, { role: "user", content: "Go on." }], []);
  expect(bare[0]!.role).toBe("user");
  expect(alternates(bare)).toBe(true);
});
