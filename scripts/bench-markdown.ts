#!/usr/bin/env bun
/**
 * What rendering the model's reply as Markdown costs, without the terminal, the socket or the
 * loop: bench:tui's reply (scripts/markdown-reply.ts) at 2,000 tokens a second, a flush per
 * 200 ms frame (the pace of text pouring in), into a transcript buffer 95 columns wide.
 *
 *   npm run bench:markdown
 *   bun scripts/bench-markdown.ts [--seconds S] [--runs N]
 *
 * Each run is a fresh process (the JIT starts cold, as in the TUI); it prints the CPU of the
 * whole process (every thread) per second of stream, median and range. Asserts nothing.
 */
import path from "node:path";
import { MarkdownStream } from "../src/tui/markdown/stream.ts";
import { TranscriptBuffer } from "../src/tui/transcript-buffer.ts";
import { markdownToken } from "./markdown-reply.ts";

const TOKENS_PER_SECOND = 2000;
const FRAMES_PER_SECOND = 5;
const PANE_WIDTH = 95;

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

/** One run in this process: CPU milliseconds per second of stream. */
function renderOnce(seconds: number): { cpuPerSecond: number; rows: number } {
  const tokens = TOKENS_PER_SECOND * seconds;
  const perFrame = TOKENS_PER_SECOND / FRAMES_PER_SECOND;
  const buffer = new TranscriptBuffer(PANE_WIDTH);
  const markdown = new MarkdownStream();
  const started = process.cpuUsage();
  for (let i = 0; i < tokens; i++) {
    markdown.append(markdownToken(i, tokens));
    if (i % perFrame === perFrame - 1) {
      const { commit, provisional } = markdown.flush();
      buffer.replaceGrowing(commit, provisional, "assistant");
    }
  }
  buffer.replaceGrowing(markdown.end(), [], "assistant");
  const used = process.cpuUsage(started);
  return { cpuPerSecond: (used.user + used.system) / 1000 / seconds, rows: buffer.length };
}

if (process.argv.includes("--child")) {
  console.log(JSON.stringify(renderOnce(option("--seconds", 30))));
} else {
  const seconds = option("--seconds", 30);
  const runs = option("--runs", 5);
  const figures: number[] = [];
  let rows = 0;
  for (let run = 0; run < runs; run++) {
    const child = Bun.spawnSync([process.execPath, path.join(import.meta.dir, "bench-markdown.ts"), "--child", "--seconds", String(seconds)], { stderr: "inherit" });
    const result = JSON.parse(child.stdout.toString()) as { cpuPerSecond: number; rows: number };
    figures.push(result.cpuPerSecond);
    rows = result.rows;
  }
  figures.sort((a, b) => a - b);
  const median = figures[Math.floor(figures.length / 2)]!;
  console.log(`Markdown rendering of bench:tui's reply, ${TOKENS_PER_SECOND} tokens/s for ${seconds} s, a flush every ${1000 / FRAMES_PER_SECOND} ms, ${runs} fresh processes`);
  console.log(`  CPU per second of stream: median ${median.toFixed(1)} ms (${figures[0]!.toFixed(1)}–${figures.at(-1)!.toFixed(1)}), that is ${(median / 10).toFixed(2)}% of a core; ${rows} rows`);
}
