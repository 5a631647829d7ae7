import { expect, test } from "bun:test";
import { ollamaHostUrl } from "../../src/model/ollama-host.ts";

// Each row: an OLLAMA_HOST value and the address Ollama's own client (envconfig.Host) dials for it.
const TABLE: Array<[string | undefined, string]> = [
  [undefined, "http://127.0.0.1:11434"],
  ["", "http://127.0.0.1:11434"],
  ["   ", "http://127.0.0.1:11434"],
  ["127.0.0.1:11435", "http://127.0.0.1:11435"],
  ["localhost:11434", "http://localhost:11434"],
  [":12345", "http://127.0.0.1:12345"],
  ["0.0.0.0", "http://0.0.0.0:11434"],
  ["gpu-box", "http://gpu-box:11434"],
  ["gpu-box.lan:8000", "http://gpu-box.lan:8000"],
  ["http://gpu-box", "http://gpu-box:80"],
  ["https://gpu-box", "https://gpu-box:443"],
  ["http://gpu-box:11434", "http://gpu-box:11434"],
  ["http://gpu-box:11434/", "http://gpu-box:11434"],
  ["https://proxy.example/ollama", "https://proxy.example:443/ollama"],
  ["http://127.0.0.1:11434/api/", "http://127.0.0.1:11434/api"],
  ['"127.0.0.1:5000"', "http://127.0.0.1:5000"],
  ["'http://host:5000'", "http://host:5000"],
  ["  127.0.0.1:5000  ", "http://127.0.0.1:5000"],
  ["::1", "http://[::1]:11434"],
  ["[::1]", "http://[::1]:11434"],
  ["[::1]:5000", "http://[::1]:5000"],
  ["http://[fe80::1]:5000", "http://[fe80::1]:5000"],
  ["host:notaport", "http://host:11434"],
  ["host:99999", "http://host:11434"],
  ["http://host:-1", "http://host:80"],
  ["ollama.com", "https://ollama.com:443"],
];

test.each(TABLE)("OLLAMA_HOST=%p means %s", (value, url) => {
  expect(ollamaHostUrl(value)).toBe(url);
});
