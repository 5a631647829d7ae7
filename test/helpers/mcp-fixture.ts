import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FixtureState } from "../fixtures/mcp/server.ts";
import { tempFolder } from "./workspace.ts";

/** The fixture MCP server (test/fixtures/mcp/server.ts), run by the Bun running the tests. */
export const FIXTURE_SERVER = join(import.meta.dir, "..", "fixtures", "mcp", "server.ts");

/** A schema with one required string, `text`. */
export const TEXT_SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

export function tool(name: string, description = `The ${name} tool.`, inputSchema: unknown = TEXT_SCHEMA, extra: Record<string, unknown> = {}) {
  return { name, description, inputSchema, ...extra };
}

export interface Fixture {
  /** The file the server reads its tools from. */
  statePath: string;
  /** Changes what the server lists; a running server announces it with list_changed. */
  update(state: FixtureState): void;
}

function fixtureState(state: FixtureState): Fixture {
  const statePath = join(tempFolder("mcp-state"), "state.json");
  let writes = 0;
  const update = (next: FixtureState) => {
    writeFileSync(statePath, JSON.stringify(next));
    // A distinct modification time for every write, however close together: the server polls it.
    const when = new Date(Date.now() + ++writes * 1000);
    utimesSync(statePath, when, when);
  };
  update(state);
  return { statePath, update };
}

/** A stdio server definition for glassbox.json, and the handle to change its tools. */
export function stdioFixture(state: FixtureState, extraEnv: Record<string, string> = {}, more: Record<string, unknown> = {}) {
  const fixture = fixtureState(state);
  // The state path rides along in argv too (the server ignores it), so a test can find the server's processes by it.
  return { ...fixture, config: { command: [process.execPath, FIXTURE_SERVER, `--tag=${fixture.statePath}`], env: { FIXTURE_STATE: fixture.statePath, ...extraEnv }, ...more } };
}

/** A Streamable HTTP fixture on 127.0.0.1, port 0; stop() ends it. */
export async function httpFixture(state: FixtureState) {
  const fixture = fixtureState(state);
  const child = Bun.spawn([process.execPath, FIXTURE_SERVER, "--http"], { env: { ...process.env, FIXTURE_STATE: fixture.statePath }, stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let text = "";
  while (!/PORT \d+/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the HTTP fixture ended before it said its port: ${text}`);
    text += new TextDecoder().decode(value);
  }
  const port = Number(/PORT (\d+)/.exec(text)![1]);
  return { ...fixture, url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill("SIGKILL") };
}
