import { describe, expect, test } from "bun:test";
import { parseCli } from "../../src/cli/args.ts";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { openSession, type Session } from "../../src/session/session.ts";
import type { SlashHost } from "../../src/tui/slash-commands.ts";
import { submitInput, type SubmitHost } from "../../src/tui/submit.ts";
import { scriptFile } from "../helpers/cli.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

/** A host over a toy workspace that records what Enter did; `model: false` is a TUI with no model chosen yet. */
function host(options: { model?: boolean } = {}) {
  const session: Session = openSession(parseCli(["--model", scriptFile([]), "--workspace", makeWorkspace().root]));
  const did = { history: [] as string[], sent: [] as { message: string; typed: string }[], said: [] as string[], warning: "", picked: 0, helped: 0 };
  const slash = { running: () => false, help: () => void did.helped++, limits: () => DEFAULT_LIMITS } as SlashHost;
  const h: SubmitHost = {
    session: { spec: options.model === false ? null : session.spec, workspace: session.workspace, limits: session.limits },
    history: { add: (text) => void did.history.push(text) },
    runs: { submit: (message, typed) => void did.sent.push({ message, typed }) },
    slash,
    pickModel: () => void did.picked++,
    say: (text) => void did.said.push(text),
    warn: (text) => void (did.warning = text),
    redraw: () => {},
  };
  return { h, did };
}

describe("Enter on the input", () => {
  test("a message is kept in the history as typed and sent without the blank lines around it", () => {
    const { h, did } = host();
    expect(submitInput("\n  \n  indented task  \n\n", h)).toBe(true);
    expect(did.history).toEqual(["\n  \n  indented task  \n\n"]);
    expect(did.sent).toEqual([{ message: "  indented task", typed: "  indented task" }]);
  });

  test("nothing but blanks stays in the input and goes nowhere", () => {
    const { h, did } = host();
    expect(submitInput(" \n \n", h)).toBe(false);
    expect(did).toMatchObject({ history: [], sent: [] });
  });

  test("a slash command runs and is neither sent nor kept; an unknown one stays in the input with a warning", () => {
    const { h, did } = host();
    did.warning = "an old warning";
    expect(submitInput("/help", h)).toBe(true);
    expect(did.helped).toBe(1);
    expect(did.warning).toBe("");
    expect(submitInput("/frobnicate", h)).toBe(false);
    expect(did.warning).toBe("unknown command /frobnicate: /help lists the commands");
    expect(did).toMatchObject({ history: [], sent: [] });
  });

  test("with no model yet the message stays in the input and the picker opens", () => {
    const { h, did } = host({ model: false });
    expect(submitInput("fix the bug", h)).toBe(false);
    expect(did.picked).toBe(1);
    expect(did.warning).toBe("choose a model first, then Enter sends the message");
    expect(did.history).toEqual(["fix the bug"]);
    expect(did.sent).toEqual([]);
  });

  test("@file sends the file's text along and says so; an @ it may not read stops the message", () => {
    const { h, did } = host();
    expect(submitInput("explain @README.md", h)).toBe(true);
    expect(did.said).toEqual(["attached: README.md"]);
    expect(did.sent[0]!.typed).toBe("explain @README.md");
    expect(did.sent[0]!.message).toStartWith("explain @README.md\n");
    expect(did.sent[0]!.message.length).toBeGreaterThan("explain @README.md\n".length + 10);
    expect(submitInput("read @../secrets/canary.txt", h)).toBe(false);
    expect(did.warning).toStartWith("@../secrets/canary.txt is not attached: ");
    expect(did.sent).toHaveLength(1);
  });
});
