#!/usr/bin/env bun
/**
 * What a sub-run saves the parent's context: one scripted task on a generated 300-file
 * TypeScript repository (find where the shipping fee is computed, fix it, run the check), played
 * through the real agent loop, checkpoint and llama.cpp adapter in four arms: neither the sub-run
 * nor the map, the map alone, the sub-run alone, the sub-run and the map. The model's calls are
 * fixed per arm (the search a small model makes without help: the listing, a search, two files
 * read that only use the value, a narrower search, the file that computes it; with the map, one
 * look-up). Prints, per arm: the parent's requests and the prompt tokens it sends over the run,
 * the sub-run's, and what a real llama-server processed of them; then the parent's tokens without
 * both against with both (target: at least 3 times fewer), and what the parent's first request
 * after a sub-run processed against the sub-run's answer (target: at most the answer + 64).
 *
 * The prompts go to a real llama-server started as glassbox starts one for `gguf:` (its command
 * line: ggufLaunch, LlamaServerProcess), a fresh one per arm, through a proxy that has it
 * process each prompt for one token and answers with the script (test/helpers/cache-proxy.ts),
 * so its prompt cache does what a run would make it do; tokens are the server's own counts.
 * Without a llama-server (none found, or --no-server) the tokens are glassbox's estimate and
 * nothing is processed. Exits 1 when a target is missed or an arm did not fix the bug.
 *
 *   bun scripts/bench-subrun.ts [--no-server] [--json]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Checkpoint } from "../src/core/checkpoint.ts";
import { Policy, parseRule } from "../src/core/policy.ts";
import { runAgent } from "../src/core/loop.ts";
import { Workspace } from "../src/files/workspace.ts";
import { LlamaCppModel } from "../src/model/llamacpp.ts";
import { ggufLaunch } from "../src/model/llama-server-launch.ts";
import { LlamaServerProcess } from "../src/model/llama-server-process.ts";
import { DEFAULT_MODEL_OPTIONS } from "../src/model/options.ts";
import { ScriptSchema, ScriptedModel, type ScriptedReply } from "../src/model/scripted.ts";
import { assemble, builtinLayers } from "../src/prompt/layers.ts";
import { DEFAULT_COMPONENTS } from "../src/protocol/components.ts";
import { systemClock } from "../src/protocol/clock.ts";
import type { AgentEvent, EventOf } from "../src/protocol/events.ts";
import { resolveLimits } from "../src/protocol/limits.ts";
import type { ModelClient } from "../src/protocol/model.ts";
import { ConfigSchema } from "../src/session/config.ts";
import { TOOL_NAMES, defaultTools } from "../src/tools/index.ts";
import { startCacheProxy } from "../test/helpers/cache-proxy.ts";
import type { CachedReply } from "../test/helpers/cache-server.ts";
import { findLlamaServer, llamaServerExecutable, testModel } from "./llama-server.ts";

const WINDOW = 32_768;
/** The parent's tokens without the sub-run and the map, against with both. */
const TARGET_RATIO = 3;
/** What the parent's first request after a sub-run may process beyond the answer. */
const TARGET_AROUND = 64;

// ───────────────────────────── the repository ─────────────────────────────

const AREAS = ["billing", "cart", "catalog", "checkout", "customers", "delivery", "discounts", "inventory", "invoices", "loyalty", "notifications", "orders", "payments", "pricing", "promotions", "refunds", "reports", "returns", "reviews", "search", "sessions", "shipping", "stock", "subscriptions", "suppliers", "taxes", "tickets", "users", "vouchers", "warehouse"];
const PARTS = ["model", "service", "rules", "format", "store", "events", "limits", "totals", "labels", "summary"];
export const FILES = AREAS.length * PARTS.length;
/** Where the fee is computed, and the bug: the express factor doubles the weight's part only. */
export const FEE_FILE = "src/delivery/rules.ts";
const BUGGY = "  const fee = BASE_FEE + weightKg * PER_KG * (express ? EXPRESS_FACTOR : 1);";
const FIXED = "  const fee = (BASE_FEE + weightKg * PER_KG) * (express ? EXPRESS_FACTOR : 1);";
/** Files that use the fee without computing it: the search finds them first. */
const USERS = ["src/checkout/totals.ts", "src/cart/summary.ts", "src/orders/service.ts", "src/invoices/format.ts", "src/shipping/labels.ts", "src/pricing/totals.ts", "src/subscriptions/service.ts", "src/returns/rules.ts", "src/refunds/service.ts", "src/reports/summary.ts", "src/warehouse/events.ts", "src/delivery/service.ts", "src/vouchers/rules.ts", "src/loyalty/totals.ts", "src/payments/service.ts", "src/customers/summary.ts"];

/** What each of a module's functions works out: eight, so a module is about 100 lines (4 KB), as real ones are. */
const STEPS = ["subtotal", "weight", "count", "average", "largest", "smallest", "median", "spread"];

/** One ordinary module: a few constants and functions of its own, and the fee where it uses it. */
function moduleText(area: string, part: string, index: number): string {
  const name = `${area}${part[0]!.toUpperCase()}${part.slice(1)}`;
  const path = `src/${area}/${part}.ts`;
  const uses = USERS.includes(path);
  const lines = [
    `// ${area}/${part}: ${part} of the ${area} area.`,
    `import { round } from "../util/${index % 2 ? "math" : "numbers"}.ts";`,
    ...(uses ? [`import { shippingFee } from "../delivery/rules.ts";`] : []),
    "",
    `export const ${area.toUpperCase()}_${part.toUpperCase()}_LIMIT = ${(index * 37) % 500 + 10};`,
    `export const ${area.toUpperCase()}_${part.toUpperCase()}_RATE = ${((index * 13) % 90) / 100 + 0.05};`,
    "",
    `export interface ${name[0]!.toUpperCase()}${name.slice(1)}Line {`,
    "  id: string;",
    "  quantity: number;",
    "  unitPrice: number;",
    "  weightKg: number;",
    "  express: boolean;",
    "}",
    "",
  ];
  for (let f = 0; f < STEPS.length; f++) {
    const fn = `${name}Step${f + 1}`;
    lines.push(
      `/** Step ${f + 1} of the ${part} of ${area}: the lines' ${STEPS[f]} after the ${area} rules. */`,
      `export function ${fn}(lines: Array<{ quantity: number; unitPrice: number; weightKg: number; express: boolean }>): number {`,
      "  let total = 0;",
      "  for (const line of lines) {",
      `    const value = line.quantity * line.unitPrice * ${(1 + ((index + f) % 7) / 10).toFixed(1)};`,
      `    total += value > ${area.toUpperCase()}_${part.toUpperCase()}_LIMIT ? value * (1 - ${area.toUpperCase()}_${part.toUpperCase()}_RATE) : value;`,
      "  }",
      ...(uses && f === 2 ? ["  // The delivery part of the total: the fee for each line's weight.", "  for (const line of lines) total += shippingFee(line.weightKg, line.express);"] : []),
      "  return round(total);",
      "}",
      "",
    );
  }
  return lines.join("\n");
}

/** The module that computes the fee (with the bug), among its own neighbours' kind of code. */
function feeModule(): string {
  return [
    "// delivery/rules: the rules of delivery: fees, zones, dates.",
    'import { round } from "../util/numbers.ts";',
    "",
    "export const BASE_FEE = 4.5;",
    "export const PER_KG = 1.25;",
    "export const EXPRESS_FACTOR = 2;",
    "",
    "/** The delivery zone of a postcode: its first digit, 1 to 9. */",
    "export function deliveryZone(postcode: string): number {",
    "  const digit = Number(postcode.trim()[0]);",
    "  return Number.isInteger(digit) && digit > 0 ? digit : 9;",
    "}",
    "",
    "/** The shipping fee of a parcel: the base fee and the weight's part, twice that for express. */",
    "export function shippingFee(weightKg: number, express: boolean): number {",
    BUGGY,
    "  return round(fee);",
    "}",
    "",
    "/** Days to deliver to a zone, one more for standard delivery. */",
    "export function deliveryDays(zone: number, express: boolean): number {",
    "  return Math.ceil(zone / 3) + (express ? 0 : 1);",
    "}",
    "",
  ].join("\n");
}

/** Writes the repository (FILES modules, two helpers, the check) into `root`. */
export function writeRepository(root: string): void {
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  let index = 0;
  for (const area of AREAS) {
    for (const part of PARTS) {
      const path = `src/${area}/${part}.ts`;
      write(path, path === FEE_FILE ? feeModule() : moduleText(area, part, index));
      index++;
    }
  }
  for (const helper of ["math", "numbers"]) write(`src/util/${helper}.ts`, "export function round(value: number): number {\n  return Math.round(value * 100) / 100;\n}\n");
  write(
    "check.ts",
    [
      'import { shippingFee } from "./src/delivery/rules.ts";',
      "const cases: Array<[number, boolean, number]> = [[2, false, 7], [2, true, 14], [0, true, 9]];",
      "const wrong = cases.filter(([kg, express, fee]) => shippingFee(kg, express) !== fee);",
      'for (const [kg, express, fee] of wrong) console.log(`shippingFee(${kg}, ${express}) is ${shippingFee(kg, express)}, not ${fee}`);',
      'console.log(wrong.length ? "FAIL" : "ok: every shipping fee is right");',
      "process.exit(wrong.length ? 1 : 0);",
      "",
    ].join("\n"),
  );
}

// ───────────────────────────── the arms and their scripts ─────────────────────────────

export interface Arm {
  name: string;
  map: boolean;
  explore: boolean;
}

export const ARMS: Arm[] = [
  { name: "neither", map: false, explore: false },
  { name: "map", map: true, explore: false },
  { name: "sub-run", map: false, explore: true },
  { name: "sub-run + map", map: true, explore: true },
];

const TASK = "An express order's shipping fee comes out wrong. Find where the shipping fee is computed, fix it, and run the check.";
const QUESTION = "Where is the shipping fee computed? Give the file, the line and the code of the computation.";
export const ANSWER = `The shipping fee is computed by shippingFee(weightKg, express) in ${FEE_FILE}, lines 15-18:\n${BUGGY.trim()}\nThe express factor multiplies only the weight's part, not the base fee.`;

const call = (name: string, args: Record<string, unknown>): CachedReply => ({ call: { name, arguments: args } });

/** Finding the fee by hand: the listing, a search, two files that only use it, a narrower search, the file itself. */
function search(): CachedReply[] {
  return [
    call("list_files", {}),
    call("search_text", { pattern: "shippingFee" }),
    call("read_file", { path: USERS[0]! }),
    call("read_file", { path: USERS[1]! }),
    call("search_text", { pattern: "function shippingFee" }),
    call("read_file", { path: FEE_FILE }),
  ];
}

/** Finding it with the map: one look-up, then the lines around it. */
function lookUp(): CachedReply[] {
  return [call("find_symbol", { name: "shippingFee" }), call("read_file", { path: FEE_FILE, start: 13, max_lines: 8 })];
}

/** The arm's replies in the order the model is asked: the sub-run's (when there is one) where its explore call starts it. */
export function script(arm: Arm): CachedReply[] {
  const finding = arm.map ? lookUp() : search();
  const fix = [
    call("edit_file", { path: FEE_FILE, old: BUGGY, new: FIXED }),
    call("run_check", { name: "check" }),
    call("finish", { summary: `Fixed shippingFee in ${FEE_FILE}: the express factor now doubles the whole fee; the check passes.` }),
  ];
  if (!arm.explore) return [...finding, ...fix];
  // The parent reads the lines the answer names before it edits them.
  return [call("explore", { question: QUESTION }), ...finding, call("finish", { summary: ANSWER }), call("read_file", { path: FEE_FILE, start: 15, max_lines: 4 }), ...fix];
}

// ───────────────────────────── running an arm ─────────────────────────────

/** One arm's figures: `sent` the prompt tokens of every request, `processed` what the server did not have cached (null: no server). */
export interface Figures {
  arm: string;
  parent: { requests: number; sent: number; processed: number | null };
  sub: { requests: number; sent: number; processed: number | null };
  /** The parent's first request after its sub-run: processed, and the answer it got, in tokens. */
  afterSubRun: { processed: number; answer: number } | null;
  fixed: boolean;
  completed: boolean;
  counted: "server" | "estimate";
}

export interface Backend {
  model: ModelClient;
  /** A text's length in tokens, as the server counts them. */
  tokens(text: string): Promise<number>;
  stop(): Promise<void>;
}

/** A fresh llama-server started as glassbox starts one for gguf:, the proxy in front of it answering with the script. */
export async function serverBackend(replies: CachedReply[], workspace: string): Promise<Backend> {
  const launch = ggufLaunch(await testModel("prose"), ConfigSchema.parse({ model_options: { num_ctx: WINDOW } }), workspace, 1, { ...process.env, GLASSBOX_LLAMA_SERVER: await llamaServerExecutable() });
  const { server } = await LlamaServerProcess.start(launch);
  let next = 0;
  const proxy = startCacheProxy(WINDOW, server.url, () => replies[next++] ?? { text: "(the script has ended)" });
  const tokens = async (text: string) => {
    const answer = await fetch(`${server.url}/tokenize`, { method: "POST", body: JSON.stringify({ content: text }) });
    return ((await answer.json()) as { tokens: unknown[] }).tokens.length;
  };
  return {
    model: new LlamaCppModel("llamacpp", proxy.url, DEFAULT_MODEL_OPTIONS),
    tokens,
    stop: async () => {
      proxy.stop();
      await server.stop();
    },
  };
}

/** No server: the scripted model plays the replies; tokens are glassbox's estimate. */
function scriptedBackend(replies: CachedReply[]): Backend {
  const scripted: ScriptedReply[] = replies.map((reply) => ("call" in reply ? { content: "", tool_calls: [{ name: reply.call.name, arguments: reply.call.arguments }] } : { content: reply.text }));
  return { model: new ScriptedModel("scripted:bench", ScriptSchema.parse({ replies: scripted })), tokens: async (text) => Math.ceil(text.length / 4), stop: async () => {} };
}

export async function playArm(arm: Arm, useServer: boolean): Promise<Figures> {
  const root = mkdtempSync(join(tmpdir(), "glassbox-bench-subrun-"));
  writeRepository(root);
  const backend = useServer ? await serverBackend(script(arm), root) : scriptedBackend(script(arm));
  try {
    const events = await runTask(root, backend.model, arm);
    return await figures(arm, events, backend, root, useServer);
  } finally {
    await backend.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The task played through the real loop and checkpoint; `systemPrompt` defaults to glassbox's built-in layers. */
export async function runTask(root: string, model: ModelClient, arm: Arm, systemPrompt = assemble(builtinLayers())): Promise<AgentEvent[]> {
  const limits = resolveLimits({});
  const checks = { check: { argv: [process.execPath, "check.ts"], timeout_seconds: 60, env: [] } };
  const components = { ...DEFAULT_COMPONENTS, repo_map: arm.map, explore: arm.explore };
  const checkpoint = new Checkpoint({
    tools: defaultTools(checks, {}, undefined, components),
    workspace: new Workspace(root),
    clock: systemClock,
    policy: new Policy(["edit_file", "run_check"].map((rule) => parseRule(rule, TOOL_NAMES))),
    maxResultChars: limits.max_result_chars,
    execute: true,
  });
  const input = { runId: `bench-subrun-${arm.name}`, task: TASK, systemPrompt, model, checkpoint, offerTools: true, limits, clock: systemClock, workspace: root };
  return await Array.fromAsync(runAgent({ ...input, replyTokenCap: DEFAULT_MODEL_OPTIONS.max_tokens, contextWindow: WINDOW }));
}

export async function figures(arm: Arm, events: AgentEvent[], backend: Backend, root: string, counted: boolean): Promise<Figures> {
  const replies = events.filter((event): event is EventOf<"model_reply"> => event.kind === "model_reply");
  const requests = events.filter((event): event is EventOf<"model_request"> => event.kind === "model_request");
  const sum = (sub: boolean) => {
    const mine = replies.filter((reply) => (reply.sub_run !== undefined) === sub);
    const asked = requests.filter((request) => (request.sub_run !== undefined) === sub);
    const sent = counted ? mine.reduce((total, reply) => total + (reply.prompt_tokens ?? 0), 0) : asked.reduce((total, request) => total + request.estimated_prompt_tokens, 0);
    const processed = counted ? mine.reduce((total, reply) => total + (reply.prompt_tokens ?? 0) - (reply.cached_tokens ?? 0), 0) : null;
    return { requests: asked.length, sent, processed };
  };
  const subStop = events.findIndex((event) => event.kind === "stop" && event.sub_run !== undefined);
  const next = subStop < 0 ? undefined : replies.find((reply, index) => reply.sub_run === undefined && events.indexOf(reply) > subStop && index >= 0);
  const answer = events.find((event): event is EventOf<"tool_call"> => event.kind === "tool_call" && event.tool === "explore" && event.sub_run === undefined)?.result;
  const stop = events.at(-1);
  return {
    arm: arm.name,
    parent: sum(false),
    sub: sum(true),
    afterSubRun: counted && next && answer !== undefined ? { processed: (next.prompt_tokens ?? 0) - (next.cached_tokens ?? 0), answer: await backend.tokens(answer) } : null,
    fixed: readFileSync(join(root, FEE_FILE), "utf8").includes(FIXED),
    completed: stop?.kind === "stop" && stop.status === "completed",
    counted: counted ? "server" : "estimate",
  };
}

// ───────────────────────────── the report ─────────────────────────────

const k = (n: number | null) => (n === null ? "—" : n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : n.toLocaleString("en"));

/** Prints the table and the two targets; returns how many were missed. */
export function report(rows: Figures[]): number {
  const unit = rows[0]?.counted === "server" ? "tokens, counted by the server" : "tokens, estimated (no llama-server)";
  console.log(`| arm | parent requests | parent sends (${unit}) | sub-run requests | sub-run sends | processed by the server: parent / sub-run / all | fixed, completed |`);
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const row of rows) {
    const all = row.parent.processed === null ? null : row.parent.processed + (row.sub.processed ?? 0);
    console.log(
      `| ${row.arm} | ${row.parent.requests} | ${k(row.parent.sent)} | ${row.sub.requests} | ${k(row.sub.sent)} | ${k(row.parent.processed)} / ${k(row.sub.processed)} / ${k(all)} | ${row.fixed ? "yes" : "NO"}, ${row.completed ? "yes" : "NO"} |`,
    );
  }
  let missed = rows.filter((row) => !row.fixed || !row.completed).length;
  const without = rows.find((row) => row.arm === "neither")!;
  const both = rows.find((row) => row.arm === "sub-run + map")!;
  const ratio = without.parent.sent / both.parent.sent;
  if (ratio < TARGET_RATIO) missed++;
  console.log(`parent sends ${ratio.toFixed(1)}x fewer tokens with the sub-run and the map than with neither (target: at least ${TARGET_RATIO}x) ${ratio >= TARGET_RATIO ? "met" : "MISSED"}`);
  for (const row of rows.filter((one) => one.afterSubRun)) {
    const { processed, answer } = row.afterSubRun!;
    const met = processed <= answer + TARGET_AROUND;
    if (!met) missed++;
    console.log(`${row.arm}: the parent's first request after the sub-run processed ${processed} tokens, the answer being ${answer} (target: at most the answer + ${TARGET_AROUND}) ${met ? "met" : "MISSED"}`);
  }
  return missed;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const found = args.includes("--no-server") ? null : await findLlamaServer();
  const useServer = found !== null && !("missing" in found);
  if (found && "missing" in found) console.log(`no llama-server (${found.missing}): tokens are estimated, nothing is processed`);
  if (useServer) console.log(`llama-server ${found.version}, started as glassbox starts one for gguf: (-np 1, -c ${WINDOW}), a fresh one per arm; ${new Date().toISOString().slice(0, 10)}`);
  console.log(`${FILES} source files; the task: ${TASK}`);
  const rows: Figures[] = [];
  for (const arm of ARMS) rows.push(await playArm(arm, useServer));
  if (args.includes("--json")) console.log(JSON.stringify(rows));
  return report(rows);
}

if (import.meta.main) process.exit((await main()) ? 1 : 0);
