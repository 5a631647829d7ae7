import { describe, expect, test } from "bun:test";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { limitLines, runSlash, SLASH_COMMANDS, slashHint, type SlashHost } from "../../src/tui/slash-commands.ts";

/** A host that records what was asked of it. */
function host(running = false): SlashHost & { calls: string[] } {
  const calls: string[] = [];
  const record = (name: string) => (...args: unknown[]) => void calls.push([name, ...args.map(String)].join(" "));
  return {
    calls,
    running: () => running,
    say: record("say"),
    overlay: record("overlay"),
    help: record("help"),
    pickModel: record("pickModel"),
    undo: record("undo"),
    sessions: () => ["ID  STARTED"],
    newSession: record("newSession"),
    compact: record("compact"),
    allow: record("allow"),
    limits: () => DEFAULT_LIMITS,
    prompt: record("prompt"),
    quit: record("quit"),
  };
}

describe("slash commands", () => {
  test("each command of the contract is in the table and runs its handler", () => {
    expect(SLASH_COMMANDS.map((command) => command.name)).toEqual(["/help", "/model", "/undo", "/sessions", "/new", "/compact", "/allow", "/limits", "/prompt", "/quit"]);
    const h = host();
    for (const text of ["/help", "/model", "/undo", "/sessions", "/new", "/compact", "/allow edit_file:src/**", "/limits", "/prompt", "/quit"]) expect(runSlash(text, h)).toBeNull();
    expect(h.calls).toEqual(["help", "pickModel", "undo", "overlay sessions ID  STARTED", "newSession", "compact", "allow edit_file:src/**", `overlay limits ${limitLines(DEFAULT_LIMITS).join("\n")}`, "prompt", "quit"]);
    expect(limitLines(DEFAULT_LIMITS)[0]).toBe(`max_steps               ${DEFAULT_LIMITS.max_steps}`);
  });

  test("an unknown command is named and nothing runs", () => {
    const h = host();
    expect(runSlash("/frobnicate now", h)).toBe("unknown command /frobnicate: /help lists the commands");
    expect(h.calls).toEqual([]);
  });

  test("a missing or an unexpected argument is said", () => {
    const h = host();
    expect(runSlash("/allow", h)).toBe("/allow needs RULE: allow a tool without asking, this session (/allow edit_file:src/**)");
    expect(runSlash("/new please", h)).toBe("/new takes no argument; send /new alone");
    expect(h.calls).toEqual([]);
  });

  test("during a run, /new, /model, /undo and /compact say to stop it first; /help still works", () => {
    const h = host(true);
    for (const name of ["/new", "/model", "/undo", "/compact"]) expect(runSlash(name, h)).toBe(`${name}: a run is active; stop it first (Esc), then ${name}`);
    expect(runSlash("/help", h)).toBeNull();
    expect(h.calls).toEqual(["help"]);
  });

  test("the hint: the names the beginning matches, or what the one command does", () => {
    expect(slashHint("/")).toBe("/help  /model  /undo  /sessions  /new  /compact  /allow  /limits  /prompt  /quit");
    expect(slashHint("/al")).toBe("/allow RULE: allow a tool without asking, this session (/allow edit_file:src/**)");
    expect(slashHint("/zz")).toBe("no command starts with /zz; Tab completes, /help lists them");
  });
});
