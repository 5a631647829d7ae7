import type { Mutant } from "../mutate.ts";

/** A GGUF file is enough (issue 38): the checks before a server starts, and its lifetime. */
export const MUTANTS: Mutant[] = [
  {
    name: "a truncated GGUF is started anyway",
    file: "src/model/gguf.ts",
    find: "if (dataEnd > reader.size) throw",
    replace: "if (false) throw",
  },
  {
    name: "llama_server.args may set the port",
    file: "src/session/config.ts",
    find: ".refine((args) => !args.some((arg) => OWN_SERVER_FLAGS.includes(arg.split(\"=\")[0]!)), {",
    replace: ".refine(() => true, {",
  },
  {
    name: "no watchdog: a SIGKILL of glassbox leaves its server",
    file: "src/model/llama-server-process.ts",
    find: "    watchdog(process.pid, child.pid);\n",
    replace: "",
  },
  {
    name: "a headless run leaves its server running when it ends",
    file: "src/cli/run.ts",
    find: "    await session.ownServer?.stop();\n",
    replace: "",
  },
  {
    name: "a hang-up ends a headless run without its stop event",
    file: "src/cli/run.ts",
    find: "const signals = [\"SIGINT\", \"SIGTERM\", \"SIGHUP\"] as const;",
    replace: "const signals = [\"SIGINT\", \"SIGTERM\"] as const;",
  },
  {
    name: "a server that died mid-run is reported as a dropped connection",
    file: "src/model/gguf-model.ts",
    find: "    if (!exit) return error;\n",
    replace: "    return error;\n",
  },
  {
    name: "a dead server is started again behind the run's back",
    file: "src/model/gguf-model.ts",
    find: "    if (!this.inner) await this.start(undefined, signal);",
    replace: "    if (!this.inner || this.server?.exit) await this.start(undefined, signal);",
  },
];
