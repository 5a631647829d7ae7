/**
 * End to end: finding the model. No --model and none in the config; a fake Ollama on 127.0.0.1
 * (real HTTP: /api/tags, /api/show, streamed /api/chat) with two models is what answers, and
 * llama.cpp's address is a closed port. The home folder is empty (the picker also lists its GGUF
 * files) but in the test that puts one there. The compiled binary in tmux (test/helpers/terminal.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { testModel } from "../../scripts/llama-server.ts";
import { copyToyWorkspace } from "../../src/session/toy-workspace.ts";
import { modelIdentity } from "../../src/model/identity.ts";
import { parseModelSpec } from "../../src/model/model-spec.ts";
import { saveProfile } from "../../src/session/profile.ts";
import { closedAddress, fakeOllama, llamaCppServer, llamaCppTextScene, ollamaExample, type FakeOllamaModel, type FakeServer } from "../helpers/fake-server.ts";
import { LLAMA_START_TIMEOUT } from "../helpers/llama.ts";
import { E2E_SKIPPED, STATUS, expectCleanExit, transcriptText, useTerminal } from "../helpers/terminal.ts";

const TWO_MODELS = [
  { name: "qwen2.5:1.5b", size: 986061892, contextLength: 32768 },
  { name: "qwen3:4b", size: 2497293918, contextLength: 40960 },
];

describe.skipIf(E2E_SKIPPED)("the model picker in a real terminal", () => {
  const term = useTerminal();

  /** A fresh toy workspace (no model in its glassbox.json) and an empty home folder, on a machine where only the fake Ollama runs. */
  function machine(name: string, ollama: FakeServer) {
    const root = fs.mkdtempSync(path.join(term.dir, `${name}-`));
    const workspace = copyToyWorkspace(path.join(root, "ws"));
    const home = path.join(root, "home");
    fs.mkdirSync(home);
    const llamacpp = closedAddress();
    return { workspace, home, llamacpp, env: { HOME: home, OLLAMA_HOST: ollama.url.replace("http://", ""), GLASSBOX_LLAMACPP_URL: llamacpp, GLASSBOX_OPENAI_URLS: "" } };
  }

  const chatModels = (ollama: FakeServer) => ollama.requests.filter((request) => request.path === "/api/chat").map((request) => request.body.model);

  test("two Ollama models: the picker shows both; the one chosen gets the request, and the next start uses it without asking", async () => {
    const ollama = fakeOllama(TWO_MODELS, () => ollamaExample("01-text-stream"));
    const { workspace, llamacpp, env } = machine("remember", ollama);
    const pane = term.start("picker-first", ["--workspace", workspace], env);
    const picker = await pane.waitFor("Which model?", "the picker");
    expect(picker).toMatch(/› qwen2\.5:1\.5b +Ollama +986 MB +context 32768/);
    expect(picker).toMatch(/ {2}qwen3:4b +Ollama +2\.5 GB +context 40960/);
    expect(picker).toContain(`no model from llama.cpp at ${llamacpp}: connection refused`);
    expect(picker).toContain("Enter use it");

    pane.keys("Down");
    await pane.waitFor(/› qwen3:4b/, "the selection to move");
    pane.keys("Enter");
    const chosen = await pane.waitFor("model: ollama:qwen3:4b", "the choice in the transcript");
    expect(chosen).not.toContain("Which model?");
    expect(STATUS(chosen)).toContain("ollama:qwen3:4b");
    expect(JSON.parse(fs.readFileSync(path.join(workspace, ".glassbox", "state.json"), "utf8")).model).toMatchObject({ spec: "ollama:qwen3:4b", name: "qwen3:4b" });

    // The input line has the keys again: the task goes to the chosen model.
    pane.type("what fails?");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the run to complete");
    expect(chatModels(ollama)).toEqual(["qwen3:4b"]);
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();

    const again = term.start("picker-again", ["--workspace", workspace], env);
    const opened = await again.waitFor("model: ollama:qwen3:4b", "the remembered model");
    expect(opened).toContain("model: ollama:qwen3:4b (qwen3:4b · Ollama · 2.5 GB · context 40960)");
    expect(opened).toContain("in use since it was chosen here; m on an empty input line picks another");
    expect(opened).not.toContain("Which model?");
    again.type("and now?");
    again.keys("Enter");
    await again.waitFor("stopped: completed", "the second start's run");
    expect(chatModels(ollama)).toEqual(["qwen3:4b", "qwen3:4b"]);
    again.keys("C-c");
    await expectCleanExit(again, 0);
    again.close();
  }, 40_000);

  test("llama.cpp and Ollama both answering: llama.cpp's loaded model is listed first, and choosing it sends the request there", async () => {
    const ollama = fakeOllama(TWO_MODELS, () => ollamaExample("01-text-stream"));
    const llamacpp = llamaCppServer(() => llamaCppTextScene("Hello from llama.cpp."));
    const { workspace, env } = machine("both", ollama);
    const pane = term.start("picker-both", ["--workspace", workspace], { ...env, GLASSBOX_LLAMACPP_URL: llamacpp.url });
    const picker = await pane.waitFor("Which model?", "the picker");
    const rows = picker.split("\n").filter((row) => /context \d+/.test(row));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/› models\/tiny-32k\.gguf +llama\.cpp +13 MB +context 4096/);
    expect(rows[1]).toMatch(/qwen2\.5:1\.5b +Ollama +986 MB +context 32768/);
    expect(picker).not.toContain("no model from");
    pane.keys("Enter");
    await pane.waitFor(`model: llamacpp:${llamacpp.url}`, "llama.cpp in use");
    pane.type("hello");
    pane.keys("Enter");
    await pane.waitFor("Hello from llama.cpp.", "the reply");
    expect(llamacpp.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(1);
    expect(chatModels(ollama)).toEqual([]);
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 40_000);

  test("m on an empty input line reopens the picker; Esc keeps the model; m followed by more letters is a message", async () => {
    const ollama = fakeOllama(TWO_MODELS, () => ollamaExample("01-text-stream"));
    const { workspace, env } = machine("reopen", ollama);
    const pane = term.start("picker-m", ["--workspace", workspace], env);
    await pane.waitFor("Which model?", "the picker");
    pane.keys("Enter");
    await pane.waitFor("model: ollama:qwen2.5:1.5b", "the first model in use");

    pane.type("m");
    const reopened = await pane.waitFor("Which model?", "the picker again");
    expect(reopened).toMatch(/› qwen2\.5:1\.5b .*\(in use\)/);
    pane.keys("Escape");
    const closed = await pane.waitFor((text) => !text.includes("Which model?"), "the picker to close");
    expect(STATUS(closed)).toContain("ollama:qwen2.5:1.5b");

    // "make…" opens the picker at the m, and the a hands both letters back to the input line.
    pane.type("make it pass");
    const typed = await pane.waitFor("make it pass", "the message in the input line");
    expect(typed).not.toContain("Which model?");
    pane.keys("Enter");
    await pane.waitFor("› make it pass", "the message sent");
    await pane.waitFor("stopped: completed", "the run");
    expect(chatModels(ollama)).toEqual(["qwen2.5:1.5b"]);

    // Between runs, m picks another, and the next message goes to it.
    pane.type("m");
    await pane.waitFor("Which model?", "the picker between runs");
    pane.keys("Down");
    pane.keys("Enter");
    await pane.waitFor("model: ollama:qwen3:4b", "the switch");
    pane.type("again");
    pane.keys("Enter");
    await pane.waitFor((text) => (text.match(/■ stopped: completed/g) ?? []).length >= 2, "the second run");
    expect(chatModels(ollama)).toEqual(["qwen2.5:1.5b", "qwen3:4b"]);
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 40_000);

  test("each model picked brings its own profile (glassbox tune's): the status line names it and the server gets its settings; one without a profile has none", async () => {
    const ollama = fakeOllama(TWO_MODELS, () => ollamaExample("01-text-stream"));
    const { workspace, home, env } = machine("profiles", ollama);
    const config = { XDG_CONFIG_HOME: path.join(home, ".config") };
    const identity = await modelIdentity(parseModelSpec("ollama:qwen3:4b", ollama.url));
    const saved = saveProfile({ version: 1, identity, settings: { "model_options.temperature": 0 }, traits: [], created: new Date().toISOString() }, config);
    const pane = term.start("picker-profiles", ["--workspace", workspace], { ...env, ...config });
    await pane.waitFor("Which model?", "the picker");
    pane.keys("Down");
    pane.keys("Enter");
    const chosen = await pane.waitFor((text) => STATUS(text).includes(" · profile "), "the profile on the status line");
    expect(STATUS(chosen)).toContain(`ollama:qwen3:4b · profile ${path.basename(saved, ".json")}`);
    pane.type("hello");
    pane.keys("Enter");
    await pane.waitFor("stopped: completed", "the run with the profile");

    pane.type("m");
    await pane.waitFor("Which model?", "the picker between runs");
    pane.keys("Up");
    pane.keys("Enter");
    const other = await pane.waitFor("model: ollama:qwen2.5:1.5b", "the model without a profile");
    expect(STATUS(other)).not.toContain(" · profile ");
    pane.type("again");
    pane.keys("Enter");
    await pane.waitFor((text) => (text.match(/■ stopped: completed/g) ?? []).length >= 2, "the second run");
    const chats = ollama.requests.filter((request) => request.path === "/api/chat").map((request) => [request.body.model, request.body.options?.temperature]);
    expect(chats).toEqual([["qwen3:4b", 0], ["qwen2.5:1.5b", undefined]]);
    const runStarts = fs.readdirSync(path.join(workspace, ".glassbox", "runs")).sort().map((name) => JSON.parse(fs.readFileSync(path.join(workspace, ".glassbox", "runs", name), "utf8").split("\n")[0]!));
    // Two runs in one second: their ids (the file names) need not sort in the order they ran.
    const profiles = Object.fromEntries(runStarts.map((event) => [event.model, event.profile]));
    expect(profiles).toEqual({ "ollama:qwen3:4b": { path: saved, settings: { "model_options.temperature": 0 } }, "ollama:qwen2.5:1.5b": null });
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 40_000);

  test("nothing to use yet: the picker says why for each address; a message sent anyway is kept; r finds a model pulled since", async () => {
    const installed: FakeOllamaModel[] = [];
    const ollama = fakeOllama(installed, () => ollamaExample("01-text-stream"));
    const { workspace, llamacpp, env } = machine("empty", ollama);
    const pane = term.start("picker-empty", ["--workspace", workspace], env);
    const empty = await pane.waitFor("No model answers.", "the empty picker");
    expect(empty).toContain(`no model from llama.cpp at ${llamacpp}: connection refused`);
    expect(empty).toContain(`no model from Ollama at ${ollama.url}: no chat model installed`);
    expect(empty).toContain("ollama serve");
    pane.keys("Escape");
    await pane.waitFor((text) => STATUS(text).includes("no model chosen"), "the status to say so");

    pane.type("fix the tests");
    pane.keys("Enter");
    await pane.waitFor("No model answers.", "the picker, asked again");
    expect(STATUS(pane.screen())).toContain("choose a model first");
    installed.push(TWO_MODELS[1]!); // ollama pull qwen3:4b
    pane.type("r");
    await pane.waitFor(/› qwen3:4b +Ollama +2\.5 GB +context 40960/, "the pulled model after r");
    pane.keys("Enter");
    await pane.waitFor("model: ollama:qwen3:4b", "the model in use");
    // The message waited in the input line; Enter sends it to the model now chosen.
    expect(pane.screen()).toMatch(/│fix the tests +│/);
    pane.keys("Enter");
    await pane.waitFor("■ stopped: completed", "the run");
    expect(chatModels(ollama)).toEqual(["qwen3:4b"]);
    expect(ollama.requests.find((request) => request.path === "/api/chat")?.body.messages.at(-1).content).toBe("fix the tests");
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    pane.close();
  }, 40_000);

  describe("GGUF files", () => {
    let model: string;
    beforeAll(async () => {
      model = await testModel("finish");
    }, LLAMA_START_TIMEOUT);

    test("~/models' GGUF file is listed after the servers' models, with its size and trained window; without llama-server, picking it says what to do", async () => {
      const ollama = fakeOllama(TWO_MODELS.slice(0, 1), () => ollamaExample("01-text-stream"));
      const { workspace, home, env } = machine("gguf", ollama);
      fs.mkdirSync(path.join(home, "models"));
      fs.symlinkSync(model, path.join(home, "models", "tiny.gguf"));
      const missing = path.join(home, "no-such-llama-server");
      const pane = term.start("picker-gguf", ["--workspace", workspace], { ...env, GLASSBOX_LLAMA_SERVER: missing });
      // One server's model answers: used, as before; the file waits in the picker.
      await pane.waitFor("model: ollama:qwen2.5:1.5b", "the only model a server answers with");
      pane.type("m");
      const picker = await pane.waitFor("Which model?", "the picker");
      // The file's row right below the server's model.
      expect(picker).toMatch(/› qwen2\.5:1\.5b +Ollama .*\(in use\).*\n.* {3}tiny\.gguf +GGUF file +\d+ MB +context 32768/);
      pane.keys("Down");
      pane.keys("Enter");
      const refused = await pane.waitFor("cannot be used", "the reason");
      // Wrapped where the pane ends, which a long temp path moves: read as one line.
      expect(transcriptText(refused)).toMatch(/tiny\.gguf cannot be used: llama-server .*no-such-llama-server \(from GLASSBOX_LLAMA_SERVER\) does not exist/);
      expect(STATUS(refused)).toContain("tiny.gguf cannot be used; the transcript says why");
      // The model in use stays.
      expect(STATUS(refused)).toContain("ollama:qwen2.5:1.5b");
      pane.keys("C-c");
      await expectCleanExit(pane, 0);
      pane.close();
    }, 40_000);
  });
});
