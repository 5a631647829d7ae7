import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { llamaCppServer, llamaCppTextScene, llamaCppToolCallScene } from "../helpers/fake-server.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { sessionsFolder } from "../../src/session/store.ts";

const runIn = (workspace: string, model: string, ...rest: string[]) => glassbox(["run", "--json", "--model", model, "--workspace", workspace, ...rest]);

/** A headless run; returns the session id it names on its last line. */
async function sessionOf(workspace: string, model: string, ...rest: string[]): Promise<string> {
  const result = await glassbox(["run", "--model", model, "--workspace", workspace, ...rest]);
  const id = /^session: (\S+) /m.exec(result.stdout)?.[1];
  if (!id) throw new Error(`no session line in:\n${result.stdout}${result.stderr}`);
  return id;
}

const sessionFiles = (root: string) => (existsSync(sessionsFolder(root)) ? readdirSync(sessionsFolder(root)) : []);

describe("run --continue", () => {
  test("the second run's request to the model carries the first run's turns, and both runs are one session", async () => {
    const ws = makeWorkspace();
    const server = llamaCppServer((n) =>
      [llamaCppToolCallScene("read_file", '{"path":"README.md"}'), llamaCppTextScene("The answer is FORTY-TWO."), llamaCppTextScene("Doubled: 84.")][n]!,
    );
    const model = `llamacpp:${server.url}`;
    const first = await runIn(ws.root, model, "what is the answer?");
    expect(first.code).toBe(0);
    expect(sessionFiles(ws.root)).toHaveLength(1);

    const second = await runIn(ws.root, model, "--continue", "and doubled?");
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.events.at(-1)).toMatchObject({ kind: "stop", status: "completed", answer: "Doubled: 84." });
    expect(sessionFiles(ws.root)).toHaveLength(1);

    const chats = server.requests.filter((request) => request.path === "/v1/chat/completions");
    expect(chats).toHaveLength(3);
    const sent = chats[2]!.body.messages as Array<Record<string, any>>;
    expect(sent[0]!.role).toBe("system");
    expect(sent.slice(1).map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[1]!.content).toBe("what is the answer?");
    expect(sent[2]!.tool_calls[0].function).toMatchObject({ name: "read_file", arguments: '{"path":"README.md"}' });
    expect(sent[3]!.content).toContain("semver-lite"); // the README the first run read
    expect(sent[4]!.content).toBe("The answer is FORTY-TWO.");
    expect(sent[5]!.content).toBe("and doubled?");
    // The earlier turns are sent exactly as the first run sent them: the server's prompt cache still fits.
    expect(JSON.stringify(chats[1]!.body.messages)).toBe(JSON.stringify(sent.slice(0, 4)));
  }, 30_000);

  test("without --continue a run starts a session of its own", async () => {
    const ws = makeWorkspace();
    const ids = [await sessionOf(ws.root, scriptFile([{ content: "one" }]), "first"), await sessionOf(ws.root, scriptFile([{ content: "two" }]), "second")];
    expect(ids[0]).not.toBe(ids[1]);
    expect(sessionFiles(ws.root).sort()).toEqual(ids.map((id) => `${id}.jsonl`).sort());
  });

  test("nothing to continue, or an unknown --session: exit 2 naming what to do, nothing run", async () => {
    const ws = makeWorkspace();
    const none = await runIn(ws.root, scriptFile([{ content: "x" }]), "--continue", "go on");
    expect(none.code).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toStartWith("glassbox: no saved session in");
    expect(existsSync(join(ws.root, ".glassbox"))).toBe(false);

    await runIn(ws.root, scriptFile([{ content: "x" }]), "start");
    const [saved] = sessionFiles(ws.root);
    const unknown = await runIn(ws.root, scriptFile([{ content: "x" }]), "--session", "nope", "go on");
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain(`no session "nope"`);
    expect(unknown.stderr).toContain(saved!.replace(".jsonl", ""));
    expect(unknown.stderr).toContain("glassbox sessions");
    expect(sessionFiles(ws.root)).toEqual([saved!]);
  });

  test("a session whose last line was cut off continues, and says on stderr what was skipped", async () => {
    const ws = makeWorkspace();
    await runIn(ws.root, scriptFile([{ content: "The answer is FORTY-TWO." }]), "what is the answer?");
    const [file] = sessionFiles(ws.root);
    appendFileSync(join(sessionsFolder(ws.root), file!), '{"kind":"event","at":"2026-');
    const again = await runIn(ws.root, scriptFile([{ content: "Doubled: 84." }]), "--continue", "and doubled?");
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/^glassbox: session \S+: skipped line \d+: cut off mid-write \(27 bytes; glassbox ended while writing it\)\n$/);
    const start = again.events[0]!;
    expect(start).toMatchObject({ kind: "run_start", task: "and doubled?" });
    expect(again.events.find((event) => event.kind === "model_request")).toMatchObject({ messages: 4 }); // system, task, answer, new task
  });

  test("of several sessions, the newest (the one used last) is continued: the one the TUI's --continue opens", async () => {
    const ws = makeWorkspace();
    const older = await sessionOf(ws.root, scriptFile([{ content: "one" }]), "the older task");
    const newer = await sessionOf(ws.root, scriptFile([{ content: "two" }]), "the newer task");
    const holds = (id: string, text: string) => readFileSync(join(sessionsFolder(ws.root), `${id}.jsonl`), "utf8").includes(text);
    const goOn = async (task: string) => expect((await runIn(ws.root, scriptFile([{ content: "went on" }]), "--continue", task)).code).toBe(0);

    await goOn("first follow-up");
    expect([holds(newer, "first follow-up"), holds(older, "first follow-up")]).toEqual([true, false]);
    expect(sessionFiles(ws.root)).toHaveLength(2);

    // Used last now, the older session is the newest: --continue goes on from it.
    await runIn(ws.root, scriptFile([{ content: "again" }]), "--session", older, "back to the older one");
    await goOn("second follow-up");
    expect([holds(older, "second follow-up"), holds(newer, "second follow-up")]).toEqual([true, false]);
  });

  test("--demo cannot continue a session", async () => {
    const result = await glassbox(["run", "--demo", "--continue"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--demo starts on a fresh copy");
  });
});

describe("glassbox sessions", () => {
  test("lists id, started, model, runs, first task and last status, most recently used first", async () => {
    const ws = makeWorkspace();
    const first = scriptFile([{ content: "one" }]);
    const older = await sessionOf(ws.root, first, "the first session's task");
    const newer = await sessionOf(ws.root, scriptFile([{ error: "the server went away" }]), "the second session's task");
    const before = await glassbox(["sessions", "--workspace", ws.root]);
    expect(before.code).toBe(0);
    const table = before.stdout.split("\n");
    expect(table[0]).toMatch(/^ID +STARTED +MODEL +RUNS +FIRST TASK +LAST STATUS$/);
    expect(table[1]).toMatch(new RegExp(`^${newer} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC +scripted:\\S+ +1 +the second session's task +model_error$`));
    expect(table[2]).toMatch(new RegExp(`^${older} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC +scripted:\\S+ +1 +the first session's task +completed$`));
    expect(table[3]).toContain("glassbox --continue");

    // Continuing the older one makes it the most recently used; its first task stays.
    const third = scriptFile([{ content: "three" }]);
    await runIn(ws.root, third, "--session", older, "a follow-up");
    const after = (await glassbox(["sessions", "--workspace", ws.root])).stdout.split("\n");
    expect(after[1]).toMatch(new RegExp(`^${older} .* ${third.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} +2 +the first session's task +completed$`));
    expect(after[2]).toStartWith(newer);
  });

  test("a damaged session is listed with what was skipped; an empty workspace says how sessions come about", async () => {
    const ws = makeWorkspace();
    const empty = await glassbox(["sessions", "--workspace", ws.root]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toStartWith(`no saved sessions in ${ws.root}`);
    await runIn(ws.root, scriptFile([{ content: "one" }]), "a task");
    const [file] = sessionFiles(ws.root);
    appendFileSync(join(sessionsFolder(ws.root), file!), '{"kind":"mess');
    const listed = await glassbox(["sessions", "--workspace", ws.root]);
    expect(listed.stdout.split("\n")[1]).toEndWith("completed (1 damaged line(s) skipped)");
  });

  test("a stray argument or a missing workspace is a usage error", async () => {
    expect((await glassbox(["sessions", "extra"])).code).toBe(2);
    const missing = await glassbox(["sessions", "--workspace", "/nonexistent/glassbox-test"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("is not a folder");
  });
});
