import { expect, test } from "bun:test";
import { nearTests } from "../../scripts/mutate.ts";

test.each([
  ["src/tools/edit_file.ts", ["test/tools"]],
  ["src/core/checkpoint.ts", ["test/core"]],
  ["src/tui/approval-modal.ts", ["test/tui", "test/e2e"]],
  ["scripts/install.sh", ["test/scripts"]],
  ["src/nowhere/x.ts", []],
])("a mutant in %s runs %p first, then the whole suite if none of them fails", (file, near) => {
  expect(nearTests(file)).toEqual(near);
});
