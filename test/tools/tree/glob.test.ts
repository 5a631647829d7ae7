import { expect, test } from "bun:test";
import { compileGlob } from "../../../src/tools/tree/glob.ts";

const CASES: Array<[glob: string, path: string, matches: boolean]> = [
  ["*.ts", "a.ts", true],
  ["*.ts", "src/deep/a.ts", true],
  ["*.ts", "src/a.ts.md", false],
  ["*.ts", ".hidden.ts", true],
  ["src/*.ts", "src/a.ts", true],
  ["src/*.ts", "src/deep/a.ts", false],
  ["src/*.ts", "pkg/src/a.ts", false],
  ["src/**/*.test.ts", "src/a.test.ts", true],
  ["src/**/*.test.ts", "src/x/y/a.test.ts", true],
  ["/src/*.ts", "src/a.ts", true],
  ["./src/*.ts", "src/a.ts", true],
  ["src/", "src/x/y.ts", true],
  ["src/", "lib/src/y.ts", false],
  ["{a,b}.md", "docs/b.md", true],
  ["README*", "pkg/README.md", true],
  ["?.c", "x/y.c", true],
  ["?.c", "x/yy.c", false],
];

for (const [glob, path, matches] of CASES) {
  test(`${glob} ${matches ? "matches" : "does not match"} ${path}`, () => {
    expect(compileGlob(glob, "glob")(path)).toBe(matches);
  });
}
