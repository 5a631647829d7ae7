import type { Mutant } from "../mutate.ts";

/** A model server on another machine (issue 39): the key kept out of text, TLS, openai:, the first-byte wait. */
export const MUTANTS: Mutant[] = [
  {
    name: "redact() returns its input",
    file: "src/trace/redact.ts",
    find: "  for (const secret of secrets) if (text.includes(secret)) text = text.replaceAll(secret, PLACEHOLDER);\n",
    replace: "",
  },
  {
    name: "the event log is written unredacted",
    file: "src/trace/event-log.ts",
    find: "redact(JSON.stringify(event))",
    replace: "JSON.stringify(event)",
  },
  {
    name: "the wire log is written unredacted",
    file: "src/trace/wire-log.ts",
    find: "redact(line)",
    replace: "line",
  },
  {
    name: "run prints its lines unredacted",
    file: "src/cli/run.ts",
    find: "if (line !== null) out(redact(line));",
    replace: "if (line !== null) out(line);",
  },
  {
    name: "the key's JSON is its value",
    file: "src/model/access.ts",
    find: "  toJSON(): string {\n    return SHOWN;",
    replace: "  toJSON(): string {\n    return this.#value;",
  },
  {
    name: "the key's text is its value",
    file: "src/model/access.ts",
    find: "  toString(): string {\n    return SHOWN;",
    replace: "  toString(): string {\n    return this.#value;",
  },
  {
    name: "the extra CAs are not passed to fetch",
    file: "src/model/http.ts",
    find: "fetch(this.url, tls ? { ...request, tls } : request)",
    replace: "fetch(this.url, request)",
  },
  {
    name: "the extra CAs replace the system's",
    file: "src/model/access.ts",
    find: "return { ca: [...rootCertificates, ...access.extraCa] };",
    replace: "return { ca: access.extraCa };",
  },
  {
    name: "--insecure-tls is on without the flag",
    file: "src/model/server-access.ts",
    find: "    insecureTls: args.insecureTls ?? false,\n",
    replace: "    insecureTls: true,\n",
  },
  {
    name: "a certificate failure is not named",
    file: "src/model/http.ts",
    find: "    if (tlsProblem) return new ModelError(tlsProblem);\n",
    replace: "",
  },
  {
    name: "a refused key does not name the variable",
    file: "src/model/access.ts",
    find: "${access.key ? `check the key in ${variable}` : `set ${variable}`}",
    replace: "check the key",
  },
  {
    name: "a 401 from a reply is an HTTP error like any other",
    file: "src/model/llamacpp.ts",
    find: "    const refused = keyRefusal(failure.status, this.served.access);\n    if (refused) return new ModelError(refused);\n",
    replace: "",
  },
  {
    name: "a key in glassbox.json is accepted",
    file: "src/session/config.ts",
    find: "  refuseKeyInFile(raw, path);\n",
    replace: "",
  },
  {
    name: "OPENAI_API_KEY is sent to every server",
    file: "src/model/server-access.ts",
    find: "openAi && env.OPENAI_API_KEY",
    replace: "env.OPENAI_API_KEY",
  },
  {
    name: "openai: takes the first of several models",
    file: "src/model/openai.ts",
    find: "  if (listed.length === 1) return listed[0]!.id;",
    replace: "  if (listed.length >= 1) return listed[0]!.id;",
  },
  {
    name: "vLLM is sent llama.cpp's cache_prompt",
    file: "src/model/llamacpp.ts",
    find: "...(this.served.llamaCpp ? { cache_prompt: true } : {}),",
    replace: "cache_prompt: true,",
  },
  {
    name: "the wait for the first byte is held to the idle timeout",
    file: "src/model/http.ts",
    find: "return this.firstByte && !this.bodyBegun ? this.firstByte.ms : this.idleMs;",
    replace: "return this.idleMs;",
  },
  {
    name: "silence after the first byte is held to the first-byte timeout",
    file: "src/model/http.ts",
    find: "return this.firstByte && !this.bodyBegun ? this.firstByte.ms : this.idleMs;",
    replace: "return this.firstByte ? this.firstByte.ms : this.idleMs;",
  },
  {
    name: "a long wait for the first byte says nothing",
    file: "src/model/http.ts",
    find: "    if (!wait || this.noticeTimer !== undefined) return;\n",
    replace: "    return;\n",
  },
  {
    name: "the status line hides --insecure-tls",
    file: "src/tui/status-line.ts",
    find: 'const insecure = facts.insecureTls ? ` · ${paint("red", INSECURE_TLS_BADGE)}` : "";',
    replace: 'const insecure = "";',
  },
  {
    name: "run does not warn of --insecure-tls",
    file: "src/cli/run.ts",
    find: "  if (session.insecureTls) console.error(`glassbox: ${INSECURE_TLS_WARNING}`);\n",
    replace: "",
  },
  {
    name: "eval drops --ca-file and the other access options",
    file: "src/eval/runner.ts",
    find: "    ...options.reach,\n",
    replace: "",
  },
  {
    name: "discovery sends no key",
    file: "src/model/find-model.ts",
    find: "    headers: key ? requestHeaders({ ...NO_ACCESS, key: new ApiKey(key, \"GLASSBOX_API_KEY\") }) : {},",
    replace: "    headers: {},",
  },
];
