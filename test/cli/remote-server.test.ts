/**
 * A model server on another machine (issue 39), played on 127.0.0.1: the suite's real
 * llama-server started with `--api-key` and a certificate from a CA made for the test
 * (`--ssl-key-file/--ssl-cert-file`), and a fake vLLM (test/helpers/vllm.ts) that also wants a key
 * over HTTPS. `run`, `doctor` and `eval` with the key from the environment; a wrong key, no key,
 * an unknown CA each one line; --ca-file, NODE_EXTRA_CA_CERTS and --insecure-tls; and the key in
 * no file under the workspace or HOME and in no output, even from a server that echoes it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { glassbox, type CliResult } from "../helpers/cli.ts";
import { LLAMA_START_TIMEOUT, llamaServer, withoutLlama, type LlamaServer } from "../helpers/llama.ts";
import { testCertificates, withoutOpenssl, type TestCertificates } from "../helpers/tls.ts";
import { fakeVllm, type FakeVllm } from "../helpers/vllm.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";

const KEY = `sk-remote-${crypto.randomUUID().replaceAll("-", "")}`;
const WRONG = `sk-wrong-${crypto.randomUUID().replaceAll("-", "")}`;
const TASK = "Read README.md and say what the project is.";
const EVAL_LIMITS = { max_steps: 3, max_tool_calls: 4, max_calls_per_reply: 4, max_repeat: 2, deadline_seconds: 60, max_result_chars: 2000, max_transcript_chars: 12000, max_tokens: 0, max_sub_run_steps: 12 };

/** Every folder a child could write to, and everything it printed: searched for the key at the end. */
const written: string[] = [];
const printed: CliResult[] = [];
const home = tempFolder("remote-home");
written.push(home);

/** glassbox as a person on another machine runs it: HOME of its own, only the variables given. */
async function remote(args: string[], env: Record<string, string> = {}, timeoutMs = 90_000): Promise<CliResult> {
  const result = await glassbox(args, { env: { HOME: home, GLASSBOX_API_KEY: "", OPENAI_API_KEY: "", NODE_EXTRA_CA_CERTS: "", ...env }, timeoutMs });
  printed.push(result);
  return result;
}

function workspace(modelOptions: Record<string, unknown> = {}): string {
  const { root, outside } = makeWorkspace();
  written.push(outside);
  const path = join(root, "glassbox.json");
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), model_options: { temperature: 0, seed: 1, max_tokens: 64, ...modelOptions } }));
  return root;
}

const withKey = { GLASSBOX_API_KEY: KEY };
const stopOf = (result: CliResult) => result.events.findLast((event) => event.kind === "stop")!;
const eventsOf = (result: CliResult, kind: string) => result.events.filter((event) => event.kind === kind);
const linesWith = (text: string, part: string) => text.split("\n").filter((line) => line.includes(part));

describe.skipIf(withoutOpenssl() || (await withoutLlama()))("a real llama-server with --api-key over HTTPS", () => {
  let server: LlamaServer;
  let tls: TestCertificates;
  beforeAll(async () => {
    tls = testCertificates();
    server = await llamaServer("finish", { ctx: 4096, args: ["--api-key", KEY, "--ssl-key-file", tls.keyFile, "--ssl-cert-file", tls.certFile] });
  }, LLAMA_START_TIMEOUT);

  const run = (spec: string, extra: string[], env: Record<string, string>, task = TASK) => remote(["run", "--json", "--model", spec, "--workspace", workspace(), "--limit", "max_steps=2", ...extra, task], env);

  test("run with llamacpp:URL and with openai:URL/v1, the key from the environment and its CA from --ca-file", async () => {
    for (const spec of [`llamacpp:${server.url}`, `openai:${server.url}/v1`]) {
      const result = await run(spec, ["--ca-file", tls.caFile], withKey);
      expect(stopOf(result)).toMatchObject({ status: "completed" });
      expect(result.code).toBe(0);
    }
  }, 120_000);

  test("doctor: the key is set (from its variable) and the server answers with it", async () => {
    const result = await remote(["doctor", "--model", `llamacpp:${server.url}`, "--workspace", workspace(), "--ca-file", tls.caFile], withKey);
    expect(result.stdout).toContain("ok    key: set (from GLASSBOX_API_KEY)");
    expect(result.stdout).toContain("ok    context size 4096 tokens per slot");
    expect(result.stdout).toMatch(/ok {4}round trip \d+ ms/);
  }, 120_000);

  test("--api-key-env NAME: the key from that variable", async () => {
    const result = await run(`llamacpp:${server.url}`, ["--ca-file", tls.caFile, "--api-key-env", "GPU_BOX_KEY"], { GPU_BOX_KEY: KEY });
    expect(stopOf(result)).toMatchObject({ status: "completed" });
  }, 120_000);

  test("a wrong key and no key: one line naming the status and the variable, exit 1 (run and doctor)", async () => {
    const cases: Array<{ env: Record<string, string>; line: string }> = [
      { env: { GLASSBOX_API_KEY: WRONG }, line: "the server refused the key (HTTP 401): check the key in GLASSBOX_API_KEY" },
      { env: {}, line: "the server refused the key (HTTP 401): set GLASSBOX_API_KEY" },
    ];
    for (const { env, line } of cases) {
      const text = await remote(["run", "--model", `llamacpp:${server.url}`, "--workspace", workspace(), "--ca-file", tls.caFile, TASK], env);
      expect(text.code).toBe(1);
      expect(linesWith(text.stdout, "refused the key")).toEqual([expect.stringContaining(`model_error after 1 step(s), 0 tool call(s)`)]);
      expect(linesWith(text.stdout, "refused the key")[0]).toEndWith(line);
      const doctor = await remote(["doctor", "--model", `llamacpp:${server.url}`, "--workspace", workspace(), "--ca-file", tls.caFile], env);
      expect(doctor.code).toBe(1);
      expect(linesWith(doctor.stdout, "refused the key")).toEqual([`FAIL  ${line}`]);
    }
  }, 120_000);

  test("a CA this machine does not trust: one line naming the problem and --ca-file, exit 1 (run and doctor)", async () => {
    const result = await run(`llamacpp:${server.url}`, [], withKey);
    expect(result.code).toBe(1);
    expect(stopOf(result).reason).toMatch(/^cannot reach https:\/\/127\.0\.0\.1:\d+\/\S+ over TLS: its certificate is signed by a CA this machine does not trust \(\w+\); trust its CA with --ca-file FILE/);
    for (const spec of [`llamacpp:${server.url}`, `openai:${server.url}/v1`]) {
      const doctor = await remote(["doctor", "--model", spec, "--workspace", workspace()], withKey);
      expect(doctor.code).toBe(1);
      expect(linesWith(doctor.stdout, "over TLS")).toEqual([expect.stringMatching(/^FAIL  server not reachable: cannot reach \S+ over TLS: .*--ca-file FILE/)]);
      expect(doctor.stdout).toContain("      fix: trust the CA that signed the server's certificate with --ca-file FILE");
    }
  }, 120_000);

  test("NODE_EXTRA_CA_CERTS is honoured as --ca-file is", async () => {
    const result = await run(`openai:${server.url}/v1`, [], { ...withKey, NODE_EXTRA_CA_CERTS: tls.caFile });
    expect(stopOf(result)).toMatchObject({ status: "completed" });
  }, 120_000);

  test("--insecure-tls: the certificate is not checked, and run says so at its start", async () => {
    const result = await run(`llamacpp:${server.url}`, ["--insecure-tls"], withKey);
    expect(stopOf(result)).toMatchObject({ status: "completed" });
    expect(result.stderr.split("\n")[0]).toBe("glassbox: --insecure-tls is on: the server's certificate is not checked, so anyone between here and the server can read the key and the code sent; trust its CA with --ca-file FILE instead");
    const checked = await run(`llamacpp:${server.url}`, ["--ca-file", tls.caFile], withKey);
    expect(checked.stderr).not.toContain("insecure");
  }, 120_000);

  test("a task that quotes the key: the run works, and the key is kept out of what glassbox writes and prints", async () => {
    const result = await run(`llamacpp:${server.url}`, ["--ca-file", tls.caFile], withKey, `The server key is ${KEY}; read README.md.`);
    expect(stopOf(result)).toMatchObject({ status: "completed" });
    expect(result.events[0]).toMatchObject({ kind: "run_start", task: "The server key is [api key]; read README.md." });
  }, 120_000);
});

describe.skipIf(withoutOpenssl())("a vLLM server (fake, HTTPS, a key required)", () => {
  const MODELS = [
    { id: "Qwen/Qwen2.5-Coder-32B-Instruct", max_model_len: 32768 },
    { id: "meta-llama/Llama-3.1-8B-Instruct", max_model_len: 131072 },
  ];
  let vllm: FakeVllm;
  let tls: TestCertificates;
  beforeAll(() => {
    tls = testCertificates();
    vllm = fakeVllm({ key: KEY, models: MODELS, reply: () => ({ text: "The project is semver-lite.", promptTokens: 900, cachedTokens: 640 }) });
  });
  afterAll(() => vllm.stop());

  const run = (target: FakeVllm, extra: string[], modelOptions: Record<string, unknown> = {}) =>
    remote(["run", "--json", "--model", `openai:${target.url}`, "--ca-file", tls.caFile, "--workspace", workspace(modelOptions), ...extra, TASK], withKey);

  test("several models and none named: exit 2 listing their ids, nothing sent to /chat/completions", async () => {
    const before = vllm.chats().length;
    const result = await run(vllm, []);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`glassbox: ${vllm.url}/models serves 2 models and none was named; pass --model-name with one of: ${MODELS.map((model) => model.id).join(", ")}`);
    expect(vllm.chats().length).toBe(before);
  });

  test("--model-name: the run completes; the window from max_model_len, the cache's figure from prompt_tokens_details", async () => {
    const before = vllm.requests.length;
    const result = await run(vllm, ["--model-name", MODELS[1]!.id]);
    expect(stopOf(result)).toMatchObject({ status: "completed" });
    expect(eventsOf(result, "model_info")).toEqual([{ kind: "model_info", context_size: 131072 }]);
    expect(eventsOf(result, "model_reply")[0]).toMatchObject({ prompt_tokens: 900, cached_tokens: 640 });
    const seen = vllm.requests.slice(before);
    expect(seen.some((request) => request.path === "/props")).toBe(false);
    const chat = seen.find((request) => request.path === "/v1/chat/completions")!;
    expect(chat.body.model).toBe(MODELS[1]!.id);
    expect(chat.body).not.toHaveProperty("cache_prompt");
    expect(seen.every((request) => request.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  test("a request queued at the server: shown as waiting while the first byte is awaited, then the reply", async () => {
    const queued = fakeVllm({ key: KEY, models: [MODELS[0]!], reply: () => ({ text: "Queued, then answered.", delayMs: 1500 }) });
    try {
      const result = await run(queued, [], { idle_timeout_seconds: 0.5, first_byte_timeout_seconds: 20 });
      expect(stopOf(result)).toMatchObject({ status: "completed" });
      const notices = eventsOf(result, "model_notice").map((event) => event.text);
      expect(notices.length).toBeGreaterThanOrEqual(1);
      expect(notices[0]).toMatch(/^no reply yet after \d+ s: queued at the server\? \(waiting up to 20 s, first_byte_timeout_seconds\)$/);
    } finally {
      queued.stop();
    }
  });

  test("a server that echoes the key in its errors (a 401, a 500): one line, and the key nowhere", async () => {
    for (const status of [401, 500]) {
      const echo = fakeVllm({ key: KEY, models: [MODELS[0]!], echoAuthorization: status });
      try {
        const result = await run(echo, []);
        expect(result.code).toBe(1);
        const reason = stopOf(result).reason as string;
        expect(reason).toBe(status === 401 ? "the server refused the key (HTTP 401): check the key in GLASSBOX_API_KEY" : `${echo.url}/chat/completions answered HTTP 500: rejected request with Authorization: Bearer [api key]`);
        const doctor = await remote(["doctor", "--model", `openai:${echo.url}`, "--ca-file", tls.caFile, "--workspace", workspace()], withKey);
        expect(doctor.code).toBe(1);
      } finally {
        echo.stop();
      }
    }
  });

  test("eval --jobs 2 against one shared server: the key from the environment on every request, two runs at once", async () => {
    // The reply quotes the key: the eval's recordings, logs and results must not.
    const slow = fakeVllm({ key: KEY, models: [MODELS[0]!], reply: () => ({ text: `Done; the server's key is ${KEY}.`, delayMs: 400 }) });
    try {
      const root = tempFolder("remote-eval");
      written.push(root);
      const tasks = join(root, "tasks");
      mkdirSync(tasks);
      for (const name of ["a", "b", "c", "d"]) writeFileSync(join(tasks, `${name}.json`), JSON.stringify({ prompt: "Read README.md", workspace: "toy", pass: [{ status: "completed" }], limits: EVAL_LIMITS }));
      const result = await remote(["eval", "--tasks", tasks, "--model", `openai:${slow.url}`, "--ca-file", tls.caFile, "--jobs", "2", "--out", join(root, "out")], withKey, 120_000);
      expect({ code: result.code, stderr: result.code ? result.stderr : "" }).toEqual({ code: 0, stderr: "" });
      const verdicts = JSON.parse(readFileSync(join(root, "out", "results.json"), "utf8")) as Array<{ passed: boolean }>;
      expect(verdicts.map((verdict) => verdict.passed)).toEqual([true, true, true, true]);
      expect(slow.maxInFlight()).toBe(2);
      expect(slow.requests.every((request) => request.authorization === `Bearer ${KEY}`)).toBe(true);
    } finally {
      slow.stop();
    }
  }, 150_000);
});

test.skipIf(withoutOpenssl())("the key is in no file under the workspaces, the eval's folder or HOME, and in nothing printed", () => {
  const leaks = written.flatMap((folder) => filesUnder(folder).filter((file) => readFileSync(file).includes(KEY)));
  expect(leaks).toEqual([]);
  for (const result of printed) {
    expect(result.stdout).not.toContain(KEY);
    expect(result.stderr).not.toContain(KEY);
  }
  // The runs above did write: the search looked at something.
  expect(written.flatMap(filesUnder).length).toBeGreaterThan(10);
});

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => statSync(file).size > 0);
}
