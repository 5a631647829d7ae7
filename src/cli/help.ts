import { LIMIT_NAMES } from "../protocol/limits.ts";

/** One usage line of `glassbox --help`, and the command whose `--help` shows it. */
interface Usage {
  command: string | null;
  usage: string;
  what: string;
}

const USAGES: Usage[] = [
  { command: "tui", usage: "glassbox [options]", what: "interactive split-pane TUI" },
  { command: "tui", usage: "glassbox --demo", what: "the built-in scripted model on a fresh copy of the toy workspace" },
  { command: "tui", usage: "glassbox --continue | --session ID", what: "reopen the latest (or a given) saved session" },
  { command: "run", usage: 'glassbox run [options] "TASK"', what: "headless: one task, events on stdout, exit code = outcome" },
  { command: "init", usage: "glassbox init [--workspace DIR] [--dry-run] [--force]", what: "detect the project's checks, write glassbox.json" },
  { command: "sessions", usage: "glassbox sessions [--workspace DIR]", what: "saved sessions (TUI and run), most recently used first" },
  { command: "undo", usage: "glassbox undo [--run RUN_ID] [--dry-run] [--force]", what: "restore the files a run changed" },
  { command: "map", usage: "glassbox map [PATH] [--workspace DIR] [--tokens N] [--focus NAME]...", what: "the map of the code that repo_map gives the model" },
  { command: "audit", usage: "glassbox audit [--workspace DIR] [--check | --write-lock | --print]", what: "prompt-layer and MCP tool inventory; --check fails on drift from prompts.lock" },
  { command: "mcp", usage: "glassbox mcp list | trust NAME | forget NAME", what: "MCP servers, their trust and their tools' digests" },
  { command: "wire", usage: "glassbox wire [--workspace DIR]", what: "one line per logged model request / response" },
  { command: "doctor", usage: "glassbox doctor [--model SPEC]", what: "probe the model server: reachable, model present, context size, tool calls" },
  { command: "tune", usage: "glassbox tune [--model SPEC] [--quick] [--jobs N] [--out DIR]", what: "will this model work? a battery of eval tasks on your model: its traits, each setting A/B-tested (McNemar), the winners saved as its profile" },
  { command: "tune", usage: "glassbox tune --resume OUT [--jobs N]", what: "finish an interrupted tune" },
  { command: "tune", usage: "glassbox tune --show [--model SPEC]", what: "print the model's profile (applied to every run with it; --no-profile runs without)" },
  { command: "eval", usage: "glassbox eval --tasks DIR --model SPEC [--seeds 1..10] [--config A.json]... [--jobs N] [--shard K/N] [--out DIR]", what: "run a task set per seed, one arm per --config (in OUT/<arm>/), N runs at once; a table per arm, each arm against the first" },
  { command: "eval", usage: "glassbox eval --resume OUT [--jobs N] [--base-url URL]", what: "finish an interrupted eval: finished runs are kept, the rest run" },
  { command: "eval", usage: "glassbox eval --replay RUNS_DIR [--config B.json] [--out DIR]", what: "feed recorded replies back through the current harness" },
  { command: "compare", usage: "glassbox compare RESULTS_A RESULTS_B...", what: "each arm against the first: paired outcomes, McNemar p, cost (folders of one arm, e.g. shards, merge)" },
  { command: "report", usage: "glassbox report RESULTS... --out report.html", what: "one self-contained HTML file: pass rates with 95% intervals, cost, flips, per task" },
  { command: null, usage: "glassbox --help | --version", what: "(every command also answers --help, exit 0)" },
];

const OPTIONS = `Options (TUI and run):
  --model SPEC        scripted:FILE, llamacpp[:BASE_URL], ollama:MODEL, openai:BASE_URL, gguf:PATH
                      (default: config, else what answers: llama.cpp at 127.0.0.1:8080 and
                      Ollama at OLLAMA_HOST; the TUI offers a picker, run needs exactly one)
  --base-url URL      server address for ollama: (default OLLAMA_HOST) or llamacpp
  --model-name NAME   (openai:) the model to ask for, when the server lists several
  --api-key-env NAME  the environment variable holding the server's key (default GLASSBOX_API_KEY)
  --ca-file FILE      trust this CA's certificates besides the system's (a server behind a private CA)
  --insecure-tls      check no server certificate (said at the start and on the status line)
  --workspace DIR     the only folder the file tools may touch (default: current directory)
  --config FILE       JSON config (default: glassbox.json in the workspace, if present)
  --allow RULE        approve matching calls without asking; RULE is TOOL or TOOL:GLOB (repeatable);
                      run_command:ro:GLOB runs matching commands with the workspace read-only
  --deny RULE         refuse matching calls; deny beats allow (repeatable)
  --limit NAME=VALUE  override one limit (repeatable): ${LIMIT_NAMES.join(", ")}
  --json              (run) events as JSON Lines on stdout
  --record FILE       write every model reply in the scripted-model format
  --no-execute        tools are offered, but every call is answered "not executed"
  --no-tools          send no tool declarations at all
  --no-text-tool-calls  a tool call written in the reply's text is left as text
                      (--text-tool-calls: recover them where the config turned it off)
  --show-prompt       (run) print the assembled system prompt, layer boundaries marked
  --strict-prompt     (run) prompt layers that drifted from prompts.lock are an error (exit 2)
  --resume            start with the todo list saved in .glassbox/progress.json
  --continue          continue the latest saved session (its next request carries every earlier turn)
  --session ID        continue the saved session ID (glassbox sessions lists them)
  --no-profile        run without the model's profile (glassbox tune writes it; glassbox.json
                      and the command line win over it anyway)

Environment:
  OLLAMA_HOST            where Ollama is (as Ollama reads it; default 127.0.0.1:11434)
  GLASSBOX_LLAMACPP_URL  where llama.cpp is (default http://127.0.0.1:8080)
  GLASSBOX_API_KEY       the server's key, sent as a bearer token (openai: also reads OPENAI_API_KEY);
                         keys are read only from the environment, never from glassbox.json
  NODE_EXTRA_CA_CERTS    a PEM file of more CAs to trust, as --ca-file
  XDG_CONFIG_HOME        model profiles are kept in $XDG_CONFIG_HOME/glassbox/profiles
                         (default ~/.config/glassbox/profiles)

Exit codes of run: 0 completed, 1 any other stop status, 2 usage or config error.
`;

/** Where the explanation starts: a usage longer than this gets its explanation on the next line. */
const COLUMN = 33;

function usageLines(usages: Usage[]): string {
  return usages
    .map(({ usage, what }) => (usage.length < COLUMN - 1 ? `  ${usage.padEnd(COLUMN)}${what}` : `  ${usage}\n  ${" ".repeat(COLUMN)}${what}`))
    .join("\n");
}

export const HELP = `glassbox — a local-model coding agent that stands between the model and the disk

Usage:
${usageLines(USAGES)}

${OPTIONS}`;

/** `glassbox COMMAND --help`: that command's usage (with the shared options for run); the whole text for the TUI. */
export function helpFor(command: string): string {
  const own = USAGES.filter((usage) => usage.command === command);
  if (command === "tui" || own.length === 0) return HELP;
  return `Usage:\n${usageLines(own)}\n${command === "run" ? `\n${OPTIONS}` : ""}`;
}
