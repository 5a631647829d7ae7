import { afterAll } from "bun:test";
import { removeWorkspaces } from "./workspace.ts";

// Each test's time limit is given on the command line (scripts/test.ts, TEST_TIMEOUT_MS): a
// setDefaultTimeout here holds for the first test file only.

// A preload's afterAll runs once, after every test file. Removing every test's folders can take
// longer than a hook's default 5 s on a loaded machine.
afterAll(removeWorkspaces, 60_000);

// Discovery must never find a real model server on the machine running the tests: both
// addresses it asks point at the discard port, where nothing listens. Tests that want a server
// start a fake one and point these at it.
process.env.GLASSBOX_LLAMACPP_URL = "http://127.0.0.1:9";
process.env.OLLAMA_HOST = "127.0.0.1:9";
// …and the usual addresses of OpenAI-compatible servers (LM Studio, vLLM, SGLang) are not asked.
process.env.GLASSBOX_OPENAI_URLS = "";
