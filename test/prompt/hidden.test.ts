import { expect, test } from "bun:test";
import { describeHidden, hiddenCharacters, showHidden } from "../../src/prompt/hidden.ts";

test("zero-width, bidi and tag characters are counted, named and written out", () => {
  const text = "Read\u200b the file\u202e.\u{e0041}\u{e0042}";
  expect(hiddenCharacters(text)).toEqual({ "zero-width": 1, bidi: 1, tag: 2 });
  expect(describeHidden(text)).toBe("4 hidden characters (zero-width 1, bidi 1, tag 2)");
  expect(showHidden(text)).toBe("Read<U+200B> the file<U+202E>.<U+E0041><U+E0042>");
  expect(describeHidden("plain text, ünïcödé and emoji 🙂")).toBeNull();
});
