import { describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { History, HISTORY_KEPT, historyPath } from "../../../src/tui/composer/history.ts";
import { tempFolder } from "../../helpers/workspace.ts";

describe("the history of a workspace's messages", () => {
  test("kept in .glassbox/history, one JSON string a line, and read back by the next start", () => {
    const root = tempFolder("history");
    const path = historyPath(root);
    const first = new History(path);
    first.add("fix the parser");
    first.add("now the tests:\n  bun test");
    expect(readFileSync(join(root, ".glassbox", "history"), "utf8")).toBe('"fix the parser"\n"now the tests:\\n  bun test"\n');
    const next = new History(path);
    expect(next.older("")).toBe("now the tests:\n  bun test");
    expect(next.older("")).toBe("fix the parser");
  });

  test("slash commands, empty messages and a repeat of the newest are not kept", () => {
    const root = tempFolder("history");
    const history = new History(historyPath(root));
    history.add("/new");
    history.add("  ");
    history.add("one");
    history.add("one");
    expect(readFileSync(historyPath(root), "utf8")).toBe('"one"\n');
    expect(history.length).toBe(1);
  });

  test("↑ walks newest first, stops at the oldest; ↓ walks back and gives the draft past the newest", () => {
    const history = new History(historyPath(tempFolder("history")));
    for (const message of ["a", "b", "c"]) history.add(message);
    expect(history.newer()).toBeNull(); // not walking
    expect(history.older("my draft")).toBe("c");
    expect(history.older("c")).toBe("b");
    expect(history.older("b")).toBe("a");
    expect(history.older("a")).toBeNull();
    expect(history.newer()).toBe("b");
    expect(history.newer()).toBe("c");
    expect(history.newer()).toBe("my draft");
    expect(history.newer()).toBeNull();
  });

  test("a sent message ends the walk: the next ↑ starts from the newest", () => {
    const history = new History(historyPath(tempFolder("history")));
    for (const message of ["a", "b"]) history.add(message);
    history.older("");
    history.older("");
    history.add("c");
    expect(history.older("")).toBe("c");
  });

  test("a damaged line, a non-string and a slash command in the file are skipped; only the newest HISTORY_KEPT are walked", () => {
    const root = tempFolder("history");
    mkdirSync(join(root, ".glassbox"));
    const lines = Array.from({ length: HISTORY_KEPT + 5 }, (_, i) => JSON.stringify(`m${i}`));
    writeFileSync(historyPath(root), ['"old"', "{cut off", "42", '"/quit"', ...lines].join("\n") + "\n");
    appendFileSync(historyPath(root), '"half');
    const history = new History(historyPath(root));
    expect(history.length).toBe(HISTORY_KEPT);
    expect(history.older("")).toBe(`m${HISTORY_KEPT + 4}`);
  });

  test("a history that cannot be written is said, and the message still counts", () => {
    const root = tempFolder("history");
    mkdirSync(join(root, ".glassbox"));
    chmodSync(join(root, ".glassbox"), 0o500);
    const said: string[] = [];
    const history = new History(historyPath(root), (text) => said.push(text));
    history.add("hello");
    chmodSync(join(root, ".glassbox"), 0o700);
    if (process.getuid?.() === 0) return; // root writes anyway
    expect(said).toEqual([expect.stringMatching(/^history not saved: cannot write \.glassbox\/history \(EACCES\)$/)]);
    expect(history.older("")).toBe("hello");
  });
});
