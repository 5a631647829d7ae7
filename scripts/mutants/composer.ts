import type { Mutant } from "../mutate.ts";

/** The composer's guards (src/tui/composer/, src/tui/slash-commands.ts, their wiring in submit.ts and run-control.ts). */
export const MUTANTS: Mutant[] = [
  {
    name: "a paste reaches blessed as keys (its newlines send it)",
    file: "src/tui/composer/raw-input.ts",
    find: `else if (piece.kind === "paste") this.emit("paste", piece.text);`,
    replace: `else if (piece.kind === "paste") this.emit("data", Buffer.from(piece.text));`,
    tests: ["test/tui/composer/raw-input.test.ts"],
  },
  {
    name: "Alt+Enter not a newline",
    file: "src/tui/composer/raw-input.ts",
    find: "const ALT_ENTER = /\\x1b[\\r\\n]/g;",
    replace: "const ALT_ENTER = /(?!)/g;",
    tests: ["test/tui/composer/raw-input.test.ts"],
  },
  {
    name: "a folded paste sent as its label",
    file: "src/tui/composer/line-editor.ts",
    find: "return this.text.replace(/[\\ue000-\\uf8ff]/g, (char) => this.folds[char.charCodeAt(0) - FOLD_BASE] ?? char);",
    replace: "return this.text.replace(/[\\ue000-\\uf8ff]/g, (char) => this.foldOf(char) ?? char);",
    tests: ["test/tui/composer/line-editor.test.ts"],
  },
  {
    name: "@path escapes the workspace (an unconfined workspace resolves it)",
    file: "src/tui/composer/attachments.ts",
    find: "resolved = workspace.resolve(named, `@${named}`);",
    replace: "resolved = new (workspace.constructor as typeof Workspace)(workspace.root, false).resolve(named, `@${named}`);",
    tests: ["test/tui/composer/attachments.test.ts"],
  },
  {
    name: "an off-limits or outside @path is sent as plain text",
    file: "src/tui/composer/attachments.ts",
    find: "if (!(error instanceof Refusal)) throw error;",
    replace: "if (error instanceof Refusal) continue;",
    tests: ["test/tui/composer/attachments.test.ts"],
  },
  {
    name: "slash commands kept in the history",
    file: "src/tui/composer/history.ts",
    find: `return message.trim() !== "" && !message.startsWith("/");`,
    replace: `return message.trim() !== "";`,
    tests: ["test/tui/composer/history.test.ts"],
  },
  {
    name: "the history not kept across restarts",
    file: "src/tui/composer/history.ts",
    find: "this.entries = readHistory(path);",
    replace: "this.entries = [];",
    tests: ["test/tui/composer/history.test.ts"],
  },
  {
    name: "an unknown slash command sent to the model",
    file: "src/tui/submit.ts",
    find: `  if (text.startsWith("/")) {\n    const problem = runSlash`,
    replace: `  if (/^\\/(help|model|undo|sessions|new|compact|allow|limits|prompt|quit)(\\s|$)/.test(text)) {\n    const problem = runSlash`,
    tests: ["test/tui/submit.test.ts"],
  },
  {
    name: "a queued message never sent",
    file: "src/tui/run-control.ts",
    find: "const next = this.queue.shift();",
    replace: "const next = undefined;",
    tests: ["test/tui/run-control.test.ts"],
  },
  {
    name: "/compact's summary never asked for",
    file: "src/core/context.ts",
    find: "if (policy && (asked || this.pressure(messages, toolsChars) >= this.threshold(policy)))",
    replace: "if (policy && this.pressure(messages, toolsChars) >= this.threshold(policy))",
    tests: ["test/core/discipline.test.ts"],
  },
  {
    name: "Esc and Ctrl-C read together are dropped",
    file: "src/tui/screen.ts",
    find: "  separateEscapeKeys(screen.program.input);\n",
    replace: "",
    tests: ["test/tui/escape-keys.test.ts"],
  },
];
