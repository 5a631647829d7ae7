/**
 * End to end: a TUI session survives quitting. The compiled binary in tmux talks to a fake
 * llama.cpp server on 127.0.0.1 that keeps every request body, so the test sees exactly what the
 * continued conversation sent. Skipped without tmux, or with GLASSBOX_SKIP_E2E=1.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { E2E_SKIPPED, STATUS, expectCleanExit, useTerminal } from "../helpers/terminal.ts";
import { llamaCppServer, llamaCppTextScene, type FakeServer } from "../helpers/fake-server.ts";
import { readWireLog, wireLogPath } from "../../src/trace/wire-log.ts";

const chats = (server: FakeServer) => server.requests.filter((request) => request.path === "/v1/chat/completions");
const roles = (body: any) => (body.messages as Array<{ role: string; content: string }>).map((message) => `${message.role}: ${message.content}`);

describe.skipIf(E2E_SKIPPED)("sessions that survive a restart", () => {
  const term = useTerminal();

  /** A fresh toy workspace, and the TUI's arguments for it against `server`. */
  function workspaceFor(name: string, server: FakeServer): { workspace: string; args: string[] } {
    const { workspace } = term.scripted(name, []);
    return { workspace, args: ["--workspace", workspace, "--model", `llamacpp:${server.url}`] };
  }

  test("quit with Ctrl-C mid-conversation; --continue shows the old transcript and the next request carries the earlier turns", async () => {
    const replies = ["The answer is FORTY-TWO.", "Doubled, it is EIGHTY-FOUR."];
    const server = llamaCppServer((n) => llamaCppTextScene(replies[n] ?? "no more replies"));
    const { workspace, args } = workspaceFor("continue", server);

    const first = term.start("session-first", args);
    const opening = await first.waitFor("Type a task", "the first frame");
    const id = /session (\d{8}T\d{6}-[0-9a-f]{8}), saved as it goes/.exec(opening)?.[1];
    expect(id).toBeString();
    first.type("what is the answer?");
    first.keys("Enter");
    const answered = await first.waitFor("stopped: completed", "the first reply", 15_000);
    expect(answered).toContain("The answer is FORTY-TWO.");
    first.keys("C-c");
    await expectCleanExit(first, 0);
    first.close();

    const second = term.start("session-second", [...args, "--continue"]);
    const restored = await second.waitFor("restored up to here", "the restored transcript");
    expect(restored).toContain(`session ${id} restored: 1 run(s)`);
    expect(restored).toContain("› what is the answer?");
    expect(restored).toContain("The answer is FORTY-TWO.");
    expect(restored).toContain("■ stopped: completed");
    expect(STATUS(restored)).toContain("stopped: completed");
    expect(restored).toMatch(/│steps +[█░]+ 1\/\d+│/); // the meters show the restored run's figures
    second.type("and doubled?");
    second.keys("Enter");
    const next = await second.waitFor("EIGHTY-FOUR", "the second reply", 15_000);
    expect(next).toContain("The answer is FORTY-TWO."); // the old transcript stays above
    await second.waitFor((text) => STATUS(text).includes("stopped: completed"), "the second run to end");

    const requests = chats(server);
    expect(requests).toHaveLength(2);
    expect(roles(requests[1]!.body).slice(1)).toEqual(["user: what is the answer?", "assistant: The answer is FORTY-TWO.", "user: and doubled?"]);
    // The wire log says the same: the continued request carries the earlier turns.
    const logged = readWireLog(wireLogPath(workspace)).filter((entry) => entry.kind === "request");
    expect(logged.map((entry) => roles(entry.body).length)).toEqual([2, 4]);
    // One session, both runs in it.
    expect(fs.readdirSync(path.join(workspace, ".glassbox", "sessions"))).toEqual([`${id}.jsonl`]);
    second.keys("C-c");
    await expectCleanExit(second, 0);
    second.close();
  }, 60_000);

  test("quitting while a reply streams keeps what was shown: --session ID shows it and the model gets it back", async () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const server = llamaCppServer((n) => (n === 0 ? llamaCppTextScene(words, 40) : llamaCppTextScene("Continuing from there.")));
    const { workspace, args } = workspaceFor("streaming", server);

    const first = term.start("stream-first", args);
    await first.waitFor("Type a task", "the first frame");
    first.type("count for me");
    first.keys("Enter");
    const streaming = await first.waitFor("word12 ", "the reply to stream", 15_000);
    first.keys("C-c");
    await first.waitFor("Ctrl-C again quits", "the question");
    first.keys("C-c");
    await expectCleanExit(first, 0);
    first.close();
    const shown = Number(/word(\d+) ?\s*│/.exec(streaming.split("\n").filter((row) => row.includes("word")).at(-1) ?? "")?.[1]);
    expect(shown).toBeGreaterThanOrEqual(12);

    const [file] = fs.readdirSync(path.join(workspace, ".glassbox", "sessions"));
    const id = file!.replace(".jsonl", "");
    const second = term.start("stream-second", [...args, "--session", id]);
    const restored = await second.waitFor("restored up to here", "the restored transcript");
    expect(restored).toContain("› count for me");
    expect(restored).toContain(`word${shown}`);
    // Quitting aborts the run; whether its stop line was written before the process ended or not, the screen says how it ended.
    expect(restored).toMatch(/did not finish|stopped: interrupted/);
    expect(STATUS(restored)).toMatch(/unfinished|stopped: interrupted/);
    second.type("go on");
    second.keys("Enter");
    await second.waitFor("Continuing from there.", "the next reply", 15_000);
    const sent = roles(chats(server)[1]!.body).slice(1);
    expect(sent[0]).toBe("user: count for me");
    expect(sent[1]).toStartWith("assistant: word0 word1");
    expect(sent[1]).toContain(`word${shown}`);
    expect(sent[2]).toBe("user: go on");
    second.keys("C-c");
    await expectCleanExit(second, 0);
    second.close();
  }, 60_000);

  test("--session with an unknown id exits 2 naming the saved ids and glassbox sessions", async () => {
    const server = llamaCppServer(() => llamaCppTextScene("unused"));
    const { args } = workspaceFor("unknown", server);
    // Async: the fake server answers from this process, so it must not be blocked while the run waits.
    const made = Bun.spawn([term.binary, "run", ...args, "a first task"], { stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(made.stdout).text(), made.exited]);
    expect(code).toBe(0);
    const id = /^session: (\S+) /m.exec(out)![1]!;
    const pane = term.start("session-unknown", [...args, "--session", "20990101T000000-deadbeef"]);
    // The shell wraps the message at the pane's width.
    const text = (await pane.waitFor("EXITED", "the exit")).replaceAll("\n", "");
    expect(text).toContain('no session "20990101T000000-deadbeef"');
    expect(text).toContain(`saved sessions: ${id}`);
    expect(text).toContain("glassbox sessions");
    expect(text).toContain("EXITED 2");
    pane.close();
  }, 20_000);
});
