import { describe, expect, test } from "bun:test";
import { atWord, completionAt, fileCandidates } from "../../../src/tui/composer/completion.ts";

const FILES = ["README.md", "src/parse.ts", "src/version.ts", "src/tui/app.ts", "test/version.test.ts"];
const sources = { commands: ["/help", "/model", "/new", "/quit"], files: () => FILES };

describe("Tab completion", () => {
  test("a slash command's name, on a line that starts with /", () => {
    expect(completionAt("/he", 3, sources)).toMatchObject({ start: 0, end: 3, candidates: ["/help"], done: true });
    expect(completionAt("/", 1, sources)!.candidates).toEqual(["/help", "/model", "/new", "/quit"]);
    expect(completionAt("/x", 2, sources)!.candidates).toEqual([]);
  });

  test("past the command's name (its argument), or with no / and no @ word, Tab is not a completion", () => {
    expect(completionAt("/allow edit", 11, sources)).toBeNull();
    expect(completionAt("fix it", 6, sources)).toBeNull();
    expect(completionAt("a/b", 3, sources)).toBeNull();
  });

  test("an @ word: one level at a time, folders with their slash", () => {
    expect(completionAt("see @", 5, sources)!.candidates).toEqual(["@README.md", "@src/", "@test/"]);
    const folder = completionAt("see @sr", 7, sources)!;
    expect(folder).toMatchObject({ start: 4, end: 7, candidates: ["@src/"], done: false });
    expect(completionAt("see @src/", 9, sources)!.candidates).toEqual(["@src/parse.ts", "@src/tui/", "@src/version.ts"]);
    expect(completionAt("see @src/v", 10, sources)).toMatchObject({ candidates: ["@src/version.ts"], done: true });
  });

  test("the common beginning of several candidates", () => {
    expect(completionAt("@src/p", 6, { ...sources, files: () => ["src/parse.ts", "src/parser.ts"] })!.common).toBe("@src/parse");
  });

  test("no path starts so: the files whose path holds it", () => {
    expect(fileCandidates("version", FILES)).toEqual(["src/version.ts", "test/version.test.ts"]);
    expect(fileCandidates("nothing", FILES)).toEqual([]);
  });

  test("the @ word is the one the cursor is in, up to the cursor", () => {
    expect(atWord("a @src/v b", 8)).toEqual({ start: 2, word: "@src/v" });
    expect(atWord("mail me@host", 12)).toBeNull();
  });
});
