import type { Mutant } from "../mutate.ts";

/** Any instruct model (issue 49): the prompted tool protocol, its choice, and what doctor says. */
export const MUTANTS: Mutant[] = [
  {
    name: "prompted: turns of one role in a row are not joined",
    file: "src/model/prompted-tools.ts",
    find: "if (last?.role === role) last.content",
    replace: "if (false) last.content",
    tests: ["test/model/prompted-tools.test.ts"],
  },
  {
    name: "prompted: tool results kept as tool-role messages",
    file: "src/model/prompted-tools.ts",
    find: 'else if (message.role === "tool") add("user", resultTurn(message.name, message.content));',
    replace: 'else if (message.role === "tool") turns.push(message as any);',
    tests: ["test/model/prompted-tools.test.ts"],
  },
  {
    name: "prompted: the tools are not described in the system prompt",
    file: "src/model/prompted-tools.ts",
    find: 'const system = [leading, tools.length ? toolsPrompt(tools) : ""]',
    replace: 'const system = [leading, ""]',
    tests: ["test/model/prompted-tools.test.ts"],
  },
  {
    name: "auto ignores a template without tools",
    file: "src/model/tool-protocol-model.ts",
    find: 'if (tools === false) return { protocol: "prompted"',
    replace: 'if (false) return { protocol: "prompted"',
    tests: ["test/model/tool-protocol-model.test.ts"],
  },
  {
    name: "auto does not fall back when the server refuses tool roles",
    file: "src/model/tool-protocol-model.ts",
    find: 'if (said || this.setting !== "auto" || !refusesTools(error)) throw error;',
    replace: "throw error;",
    tests: ["test/model/tool-protocol-model.test.ts"],
  },
  {
    name: "native in the config falls back anyway",
    file: "src/model/tool-protocol-model.ts",
    find: 'if (said || this.setting !== "auto" || !refusesTools(error)) throw error;',
    replace: "if (said || !refusesTools(error)) throw error;",
    tests: ["test/model/tool-protocol-model.test.ts"],
  },
  {
    name: "prompted requests still carry the tools",
    file: "src/model/tool-protocol-model.ts",
    find: "promptedMessages(request.messages, request.tools), tools: [] })",
    replace: "promptedMessages(request.messages, request.tools), tools: request.tools })",
    tests: ["test/model/tool-protocol-model.test.ts"],
  },
  {
    name: "run_start does not say the chosen protocol",
    file: "src/core/run.ts",
    find: "      if (choice) this.toolProtocol = choice.protocol;\n",
    replace: "",
    tests: ["test/session/tool-protocol.test.ts"],
  },
  {
    name: "doctor still sends a tool-less template to --jinja under auto",
    file: "src/cli/doctor.ts",
    find: '      ? protocol === "native"\n',
    replace: "      ? true\n",
    tests: ["test/cli/doctor.test.ts"],
  },
  {
    name: "the headless printer does not name the prompted protocol",
    file: "src/cli/printer.ts",
    find: '${event.tool_protocol === "prompted" ? " (tools in the prompt: the prompted tool protocol)" : ""}',
    replace: "",
    tests: ["test/session/tool-protocol.test.ts"],
  },
  {
    name: "llama.cpp's template caps not read",
    file: "src/model/llamacpp.ts",
    find: 'return typeof caps?.supports_tools === "boolean" ? caps.supports_tools : null;',
    replace: "return null;",
    tests: ["test/model/tool-protocol-model.test.ts"],
  },
  {
    name: "Ollama's tools capability not read",
    file: "src/model/ollama.ts",
    find: 'return Array.isArray(capabilities) ? capabilities.includes("tools") : null;',
    replace: "return null;",
    tests: ["test/model/tool-protocol-model.test.ts"],
  },
];
