import type { TextCall, TextCallForm, ToolDeclaration } from "../../protocol/model.ts";
import { parseFenced } from "./fenced.ts";
import { parseFunctionXml } from "./function-xml.ts";
import { parseJson } from "./json.ts";
import { parseMistral } from "./mistral.ts";
import { parsePythonTag } from "./python-tag.ts";
import { OfferedTools, type Found, type Parser } from "./shared.ts";
import { parseToolCall } from "./tool-call.ts";

/** The calls a reply's text ends with: their form, the prose before them, and the calls. */
export interface Recovered {
  form: TextCallForm;
  prose: string;
  calls: TextCall[];
}

const UNFENCED: Array<[TextCallForm, Parser]> = [
  ["tool_call", parseToolCall],
  ["mistral", parseMistral],
  ["python_tag", parsePythonTag],
  ["function_xml", parseFunctionXml],
  ["json", parseJson],
];

/** End-of-turn tokens a server may leave in the text after a call. */
const END_OF_TURN = ["<|eom_id|>", "<|eot_id|>", "<|im_end|>", "<|end|>", "<|endoftext|>", "</s>"];

/**
 * Tool calls written in a reply's text instead of the protocol's tool-call field, recovered
 * where they are the whole text or its end (prose may come before them; after them only
 * whitespace or an end-of-turn token), every one naming an offered tool. Of the forms that
 * match, the one that starts first (covers the most) wins: a fence around JSON is `fenced`.
 */
export function recoverTextCalls(text: string, offered: readonly ToolDeclaration[]): Recovered | null {
  if (!offered.length) return null;
  const tools = new OfferedTools(offered);
  const body = withoutEndOfTurn(text);
  let best: (Found & { form: TextCallForm }) | null = null;
  const consider = (form: TextCallForm, found: Found | null) => {
    if (found && (!best || found.start < best.start)) best = { ...found, form };
  };
  for (const [form, parse] of UNFENCED) consider(form, parse(body, tools));
  consider("fenced", parseFenced(body, tools, wholeText));
  if (!best) return null;
  const { form, start, calls } = best as Found & { form: TextCallForm };
  const prose = body.slice(0, start);
  // A model that writes its thinking into the text (`<think>` left open) is still thinking.
  if (prose.lastIndexOf("<think>") > prose.lastIndexOf("</think>")) return null;
  return { form, prose: prose.trimEnd(), calls };
}

/** Calls that make up the whole of a text, in any unfenced form (what a fence may hold). */
function wholeText(text: string, tools: OfferedTools): Found | null {
  for (const [, parse] of UNFENCED) {
    const found = parse(text, tools);
    if (found?.start === 0) return found;
  }
  return null;
}

function withoutEndOfTurn(text: string): string {
  let body = text.trimEnd();
  for (let token = END_OF_TURN.find((end) => body.endsWith(end)); token; token = END_OF_TURN.find((end) => body.endsWith(end))) {
    body = body.slice(0, -token.length).trimEnd();
  }
  return body;
}
