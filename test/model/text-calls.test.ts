import { describe, expect, test } from "bun:test";
import { recoverTextCalls, type Recovered } from "../../src/model/text-calls/index.ts";
import { parameterText } from "../../src/model/text-calls/function-xml.ts";
import type { ToolDeclaration } from "../../src/protocol/model.ts";

/** The tools each example was offered, named as in its thread. */
const tool = (name: string, properties: Record<string, { type: string }> = {}): ToolDeclaration => ({
  name,
  description: name,
  parameters: { type: "object", properties },
});
const OFFERED = [
  tool("calculator", { expr: { type: "string" } }),
  tool("write", { content: { type: "string" }, filePath: { type: "string" } }),
  tool("fetch_file_content", { filePath: { type: "string" } }),
  tool("create_new_file", { filepath: { type: "string" }, contents: { type: "string" } }),
  tool("query_web_search", { query: { type: "string" } }),
  tool("web_search", { query: { type: "string" } }),
  tool("read_file", { path: { type: "string" }, start: { type: "integer" } }),
  tool("get_current_weather", { location: { type: "string" }, format: { type: "string" } }),
  tool("calculator_expr", { expression: { type: "string" } }),
  tool("trending_songs", { n: { type: "string" }, genre: { type: "string" } }),
  tool("trace_impact", { symbol: { type: "string" } }),
  tool("current_time"),
];

const recover = (text: string) => recoverTextCalls(text, OFFERED);
const summary = (found: Recovered | null) => found && { form: found.form, prose: found.prose, calls: found.calls };

interface Example {
  /** Where the text comes from. */
  source: string;
  text: string;
  form: Recovered["form"];
  prose?: string;
  calls: Array<{ name: string; arguments: unknown }>;
}

/**
 * Real outputs, quoted from public threads (the thread is named on each row), and the shapes
 * their model cards and servers' parsers document.
 */
const EXAMPLES: Example[] = [
  // --- json: qwen2.5-coder writes the call as bare JSON in `content`, `tool_calls` null.
  {
    source: "ollama/ollama#12174 (qwen2.5-coder:14b on ollama 0.20.7: `content: {\"name\": \"calculator\", …}`)",
    text: '{"name": "calculator", "arguments": {"expr": "17 * 23"}}',
    form: "json",
    calls: [{ name: "calculator", arguments: { expr: "17 * 23" } }],
  },
  {
    source: "anomalyco/opencode#10402 (ollama/qwen2.5-coder:7b through opencode: the JSON printed, the tool never run)",
    text: '{"name": "write", "arguments": {"content": "hello\\n", "filePath": "/C:/Code/SimpleTester/todo.md"}}',
    form: "json",
    calls: [{ name: "write", arguments: { content: "hello\n", filePath: "/C:/Code/SimpleTester/todo.md" } }],
  },
  {
    source: "selfagency/opilot#149 (qwen2.5-coder:7b, the call spread over lines)",
    text: '{\n"name": "fetch_file_content",\n"arguments": {\n"filePath": "/my/code/test-project/AGENTS.md"\n}\n}',
    form: "json",
    calls: [{ name: "fetch_file_content", arguments: { filePath: "/my/code/test-project/AGENTS.md" } }],
  },
  {
    source: "raullenchai/Rapid-MLX#700 (llama-3.1-8b: `{\"name\": \"web_search\", \"parameters\": …}` in content)",
    text: '{"name": "web_search", "parameters": {"query": "你好"}}',
    form: "json",
    calls: [{ name: "web_search", arguments: { query: "你好" } }],
  },
  {
    source: "waybarrios/vllm-mlx#580 (Llama 3.3 bare, with `\"type\": \"function\"`)",
    text: '{"type": "function", "name": "read_file", "parameters": {"path": "foo.py"}}',
    form: "json",
    calls: [{ name: "read_file", arguments: { path: "foo.py" } }],
  },
  {
    source: "ollama/ollama#12174 (qwen3:8b through the OpenAI shim: arguments as a JSON string), in the OpenAI shape",
    text: '{"type": "function", "function": {"name": "calculator", "arguments": "{\\"expr\\":\\"17 * 23\\"}"}}',
    form: "json",
    calls: [{ name: "calculator", arguments: '{"expr":"17 * 23"}' }],
  },
  {
    source: "the contract: a list of calls, prose before it",
    text: 'I will read both.\n[{"name": "read_file", "arguments": {"path": "a.ts"}}, {"name": "read_file", "arguments": {"path": "b.ts"}}]',
    form: "json",
    prose: "I will read both.",
    calls: [
      { name: "read_file", arguments: { path: "a.ts" } },
      { name: "read_file", arguments: { path: "b.ts" } },
    ],
  },
  {
    source: "the contract: a tool that takes no arguments may have none",
    text: '{"name": "current_time"}',
    form: "json",
    calls: [{ name: "current_time", arguments: {} }],
  },
  // --- fenced: Llama 3.2 wraps the call in a code block.
  {
    source: "ollama/ollama#13519 (llama3.2:3b: the call as JSON in content, wrapped in a code block)",
    text: '```json\n{"name": "query_web_search", "parameters": {"query": "install ollama models"}}\n```',
    form: "fenced",
    calls: [{ name: "query_web_search", arguments: { query: "install ollama models" } }],
  },
  {
    source: "nicedreamzapp/claude-code-local#43 (Qwen 2.5 Coder under a long system prompt: the call in a ```json fence after prose)",
    text: 'Let me create the file.\n\n```json\n{"name": "write", "arguments": {"filePath": "notes.md", "content": "hi"}}\n```\n',
    form: "fenced",
    prose: "Let me create the file.",
    calls: [{ name: "write", arguments: { filePath: "notes.md", content: "hi" } }],
  },
  // --- function_xml: qwen3-coder on Ollama.
  {
    source: "continuedev/continue#13057 (qwen3-coder:30b on Ollama 0.32.5: prose, then the call, no closing tags)",
    text: 'I\'ll create a file called test.txt with the content "hello".\n\n<function=create_new_file>\n<parameter=filepath> test.txt\n<parameter=contents> hello\n',
    form: "function_xml",
    prose: 'I\'ll create a file called test.txt with the content "hello".',
    calls: [{ name: "create_new_file", arguments: { filepath: "test.txt", contents: "hello" } }],
  },
  {
    source: "ROCm/ATOM#1427 and the Qwen3-Coder chat template (qwen_coder XML inside <tool_call>, every tag closed)",
    text: "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n<parameter=start>\n40\n</parameter>\n</function>\n</tool_call>",
    form: "tool_call",
    calls: [{ name: "read_file", arguments: { path: "src/app.py", start: 40 } }],
  },
  {
    source: "the contract: a multi-line <parameter> value keeps its indentation, losing only its first and last newline",
    text: "<function=write>\n<parameter=filePath>\nsrc/a.py\n</parameter>\n<parameter=content>\ndef f():\n    return 1\n</parameter>\n</function>",
    form: "function_xml",
    calls: [{ name: "write", arguments: { filePath: "src/a.py", content: "def f():\n    return 1" } }],
  },
  // --- tool_call: Hermes and Qwen2.5 templates.
  {
    source: "ollama/ollama#12174 (the qwen2.5 template: a JSON object within <tool_call></tool_call>); ROCm/ATOM#1427 (Qwen3's default template)",
    text: '<tool_call>\n{"name": "get_current_weather", "arguments": {"location": "Toronto", "format": "celsius"}}\n</tool_call>',
    form: "tool_call",
    calls: [{ name: "get_current_weather", arguments: { location: "Toronto", format: "celsius" } }],
  },
  {
    source: "NousResearch/hermes-agent#3518 (Hermes-4-405B: <tool_call> blocks in the text), several in a row",
    text: 'Checking both.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\n<tool_call>\n{"name": "read_file", "arguments": {"path": "b.ts"}}\n</tool_call>',
    form: "tool_call",
    prose: "Checking both.",
    calls: [
      { name: "read_file", arguments: { path: "a.ts" } },
      { name: "read_file", arguments: { path: "b.ts" } },
    ],
  },
  {
    source: "ROCm/ATOM#1427 (an unclosed trailing block is still the call) and <|im_end|> left by the server",
    text: '<tool_call>\n{"name": "calculator", "arguments": {"expr": "2+3"}}<|im_end|>',
    form: "tool_call",
    calls: [{ name: "calculator", arguments: { expr: "2+3" } }],
  },
  // --- mistral.
  {
    source: "ml-explore/mlx-lm#1643 (Mistral Nemo, Small 2409, Ministral: [TOOL_CALLS] and a JSON list)",
    text: '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "/tmp/test.txt"}, "id": "abcdefghi"}]',
    form: "mistral",
    calls: [{ name: "read_file", arguments: { path: "/tmp/test.txt" } }],
  },
  {
    source: "ml-explore/mlx-lm#1374 (Ministral-8B-Instruct-2410: `[TOOL_CALLS] [{…}]`, with a space)",
    text: '[TOOL_CALLS] [{"name": "calculator_expr", "arguments": {"expression": "2+3"}}]</s>',
    form: "mistral",
    calls: [{ name: "calculator_expr", arguments: { expression: "2+3" } }],
  },
  {
    source: "raullenchai/Rapid-MLX#1071 (devstral-v2: `[TOOL_CALLS]web_search[ARGS]{…}` leaked into content, 6 of 6)",
    text: '[TOOL_CALLS]web_search[ARGS]{"query": "latest AI model releases this month"}',
    form: "mistral",
    calls: [{ name: "web_search", arguments: { query: "latest AI model releases this month" } }],
  },
  {
    source: "ml-explore/mlx-lm#1643 (Mistral 3: the marker before each call)",
    text: '[TOOL_CALLS]read_file[ARGS]{"path": "a.ts"}[TOOL_CALLS]read_file[ARGS]{"path": "b.ts"}',
    form: "mistral",
    calls: [
      { name: "read_file", arguments: { path: "a.ts" } },
      { name: "read_file", arguments: { path: "b.ts" } },
    ],
  },
  // --- python_tag: Llama 3.1.
  {
    source: "meta-llama/llama-models#169 (Llama 3.1's JSON format, quoted from its prompt-format page)",
    text: '<|python_tag|>{\n    "type": "function",\n    "name": "trending_songs",\n    "parameters": {\n        "n": "10",\n        "genre": "all"\n    }\n}<|eom_id|>',
    form: "python_tag",
    calls: [{ name: "trending_songs", arguments: { n: "10", genre: "all" } }],
  },
  {
    source: "raullenchai/Rapid-MLX#703 (Llama 3.1 ipython mode: <|python_tag|> and \"parameters\")",
    text: '<|python_tag|>{"name": "web_search", "parameters": {"query": "weather in Paris"}}',
    form: "python_tag",
    calls: [{ name: "web_search", arguments: { query: "weather in Paris" } }],
  },
];

describe("tool calls written as text: real outputs, one table per form", () => {
  for (const example of EXAMPLES) {
    test(`${example.form}: ${example.source}`, () => {
      expect(summary(recover(example.text))).toEqual({ form: example.form, prose: example.prose ?? "", calls: example.calls });
    });
  }

  test("every form has a row", () => {
    expect(new Set(EXAMPLES.map((example) => example.form))).toEqual(new Set(["json", "tool_call", "function_xml", "mistral", "python_tag", "fenced"]));
  });
});

describe("what stays text", () => {
  const TEXT: Array<[string, string]> = [
    ["JSON naming no offered tool (Rapid-MLX#703: `Here is a user: {\"name\": \"Alice\"}`)", 'Here is a user:\n{"name": "Alice", "arguments": {}}'],
    [
      "a list where one call names no offered tool (atwmarshall/dead-reckoning#30: llama3.2 made up `slugify`)",
      '[{"name": "slugify", "parameters": {}}, {"name": "trace_impact", "parameters": {"symbol": "slugify"}}]',
    ],
    ["an object with other keys is data", '{"name": "read_file", "path": "a.ts"}'],
    ["both arguments and parameters", '{"name": "read_file", "arguments": {}, "parameters": {}}'],
    ["arguments that are neither an object nor a string", '{"name": "read_file", "arguments": 3}'],
    ["a type other than function", '{"type": "object", "name": "read_file", "arguments": {}}'],
    ["a call quoted in the middle of prose", 'You could call {"name": "read_file", "arguments": {"path": "a.ts"}} but I already know the answer.'],
    ["a tool_call block with prose after it", '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\nThen I will summarise it.'],
    ["a fenced call with prose after it", '```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```\nThat is how you would call it.'],
    ["JSON starting inside a line of prose", 'The call is {"name": "read_file", "arguments": {"path": "a.ts"}}'],
    ["Llama 3.1 built-in tool (meta-llama/llama-models#169: brave_search.call)", '<|python_tag|>brave_search.call(query="Menlo Park weather")<|eom_id|>'],
    ["a mistral call to an unknown tool", '[TOOL_CALLS]rm_rf[ARGS]{"path": "/"}'],
    ["a function_xml call with junk between parameters", "<function=read_file>\nsee below\n<parameter=path> a.ts\n"],
    ["<function=…> starting inside a line of prose", "I would start with <function=read_file>\n<parameter=path> a.ts and then look around."],
    ["an open <think> before the call", '<think>maybe\n{"name": "read_file", "arguments": {"path": "a.ts"}}'],
    ["a fence of another language", '```python\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```'],
    ["a plain answer", "The version helper pads numbers to two digits."],
    ["nothing", ""],
  ];
  for (const [what, text] of TEXT) {
    test(what, () => expect(recover(text)).toBeNull());
  }

  test("nothing is recovered when no tool is offered", () => {
    expect(recoverTextCalls('{"name": "read_file", "arguments": {"path": "a.ts"}}', [])).toBeNull();
  });

  test("a closed <think> before the call is prose", () => {
    expect(recover('<think>read it</think>\n{"name": "read_file", "arguments": {"path": "a.ts"}}')?.calls).toEqual([{ name: "read_file", arguments: { path: "a.ts" } }]);
  });
});

describe("names", () => {
  test("a name that differs from an offered one by case or -/_ is recognised, the model's spelling kept", () => {
    expect(recover('{"name": "Read-File", "arguments": {"path": "a.ts"}}')?.calls).toEqual([{ name: "Read-File", arguments: { path: "a.ts" } }]);
  });

  test("a loose spelling of two offered names that collide stays text", () => {
    const tools = [tool("read_file"), tool("Read-File")];
    expect(recoverTextCalls('{"name": "READ_FILE", "arguments": {}}', tools)).toBeNull();
    expect(recoverTextCalls('{"name": "Read-File", "arguments": {}}', tools)?.calls[0]!.name).toBe("Read-File");
  });
});

describe("<parameter> values", () => {
  test.each([
    [" test.txt\n", "test.txt"],
    ["\nsrc/a.py\n", "src/a.py"],
    ["\n  indented\n  twice\n", "  indented\n  twice"],
    ["\r\nline one\r\nline two\r\n", "line one\r\nline two"],
  ])("%j reads as %j", (raw, value) => expect(parameterText(raw)).toBe(value));

  test("a value the tool declares as text stays text even when it looks like JSON", () => {
    expect(recover("<function=read_file>\n<parameter=path> 42\n</function>")?.calls[0]!.arguments).toEqual({ path: "42" });
  });
});
