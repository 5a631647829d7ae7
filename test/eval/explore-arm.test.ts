// The eval lab's sub-run arm: components.explore (default on) offers explore; evals/configs/no-explore.json
// leaves it out. Through `glassbox eval` with two arms, each run's verdict says what its sub-runs spent.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigSchema } from "../../src/session/config.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { glassbox } from "../helpers/cli.ts";
import { tempFolder } from "../helpers/workspace.ts";

const CONFIGS = join(import.meta.dir, "..", "..", "evals", "configs");
const LIMITS = { max_steps: 8, max_tool_calls: 12, max_calls_per_reply: 4, max_repeat: 2, deadline_seconds: 90, max_result_chars: 2000, max_transcript_chars: 12000, max_tokens: 0, max_sub_run_steps: 12 };

const offers = (name: string) => defaultTools({}, {}, undefined, ConfigSchema.parse(JSON.parse(readFileSync(join(CONFIGS, `${name}.json`), "utf8"))).components).some((tool) => tool.name === "explore");

test("the baseline offers explore, no-explore does not", () => {
  expect(offers("baseline")).toBe(true);
  expect(offers("no-explore")).toBe(false);
});

test("eval with the two arms: the sub-run's tokens are in the baseline's verdict, none in no-explore's", async () => {
  const root = tempFolder("eval-explore");
  const [tasks, scripts, out] = ["tasks", "scripts", "out"].map((name) => join(root, name)) as [string, string, string];
  mkdirSync(tasks);
  mkdirSync(scripts);
  writeFileSync(join(tasks, "find.json"), JSON.stringify({ prompt: "Where is compareVersions defined?", workspace: "toy", pass: [{ answer_contains: "src/version.ts" }], limits: LIMITS }));
  const usage = { prompt_tokens: 500, gen_tokens: 20 };
  writeFileSync(
    join(scripts, "find.json"),
    JSON.stringify({
      replies: [
        { content: "", tool_calls: [{ id: "e1", name: "explore", arguments: { question: "Where is compareVersions defined?" } }], usage },
        { content: "", tool_calls: [{ id: "s1", name: "finish", arguments: { summary: "In src/version.ts." } }], usage },
        { content: "It is in src/version.ts.", usage },
      ],
    }),
  );
  const result = await glassbox(["eval", "--tasks", tasks, "--model", `scripted:${scripts}`, "--config", join(CONFIGS, "baseline.json"), "--config", join(CONFIGS, "no-explore.json"), "--out", out], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  const verdict = (arm: string) => JSON.parse(readFileSync(join(out, arm, "runs", "find", "seed-1", "verdict.json"), "utf8"));
  expect(verdict("baseline")).toMatchObject({ passed: true, status: "completed", steps: 3, tokens: 1560, sub_run_tokens: 520 });
  // Without explore the call is refused and the script's next reply (the sub-run's finish) ends the run.
  expect(verdict("no-explore")).toMatchObject({ passed: true, status: "completed", steps: 2, sub_run_tokens: 0 });
}, 60_000);
