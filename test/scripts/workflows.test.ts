/**
 * The GitHub Actions workflows cannot run here; what can be checked is that they run what
 * .ci/run runs (so the macOS job proves the same suite) and that the release job builds and
 * attaches what the install script downloads.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dir, "../..");
const workflow = (name: string) => Bun.YAML.parse(fs.readFileSync(path.join(root, ".github/workflows", name), "utf8")) as any;
const runs = (job: any): string[] => job.steps.flatMap((step: any) => (step.run ? String(step.run).trim().split("\n") : []));

describe("the GitHub workflows", () => {
  test("ci runs .ci/run's npm steps on Linux and macOS", () => {
    const ci = workflow("ci.yml");
    expect(ci.jobs.test.strategy.matrix.os).toEqual(["ubuntu-latest", "macos-latest"]);
    const npmSteps = fs.readFileSync(path.join(root, ".ci/run"), "utf8").split("\n").filter((line) => line.startsWith("npm "));
    expect(npmSteps.length).toBeGreaterThanOrEqual(3);
    expect(runs(ci.jobs.test)).toEqual(expect.arrayContaining(npmSteps));
  });

  test("release builds on a v* tag, checks the sums and attaches the files and install.sh", () => {
    const release = workflow("release.yml");
    expect(release.on.push.tags).toEqual(["v*"]);
    const lines = runs(release.jobs.release);
    expect(lines).toContain("npm run release");
    expect(lines).toContain("sha256sum -c SHA256SUMS");
    expect(lines.some((line) => line.includes("gh release upload") && line.includes("dist/release/*") && line.includes("scripts/install.sh"))).toBe(true);
  });
});
