import { redact } from "../trace/redact.ts";
import { resolve } from "node:path";
import type { CliArgs } from "./args.ts";
import { loadConfig } from "../session/config.ts";
import { createModel, loadScript, parseModelSpec, type ModelSpec } from "../model/model-spec.ts";
import { fetchJson } from "../model/http.ts";
import { serverLabel } from "../model/discovery.ts";
import { START_A_SERVER, describeCandidate, findModels, silentServers } from "../model/find-model.ts";
import { modelContextLength } from "../model/ollama.ts";
import { ModelOptionsSchema, windowOf, type ModelOptions } from "../model/options.ts";
import { sandboxFinding } from "./doctor-sandbox.ts";
import type { Config } from "../session/config.ts";
import type { ServerPlace } from "../model/model-spec.ts";
import { keyLine, serverAccess } from "../model/server-access.ts";
import { NO_ACCESS, keyRefusal, type ServerAccess } from "../model/access.ts";

/** A key the server refused: where it goes, and where it never goes. */
const KEY_FIX = "export the key in that environment variable (never in glassbox.json), then run doctor again";
import type { GgufModel } from "../model/gguf-model.ts";
import { serverCommand } from "../model/llama-server-process.ts";
import type { Finding } from "./doctor-finding.ts";
import { toolCallProbe } from "./doctor-tool-calls.ts";
import { ToolProtocolModel } from "../model/tool-protocol-model.ts";
import type { ToolProtocolSetting } from "../protocol/model.ts";

/** Room for a tool call (and a thinking model's preamble) in the probe's reply, unless the config caps replies lower; the round trip needs 8. */
const PROBE_TOKENS = 512;
/** The info endpoints and the round trip answer in seconds; the probe's reply may be hundreds of tokens from a slow model. */
const INFO_TIMEOUT_MS = 15_000;
const PROBE_TIMEOUT_MS = 60_000;

/** How a template without tools is spoken to. */
const PROMPTED = "the prompted tool protocol";

const START_SERVER = {
  llamacpp: "start it: llama-server -m MODEL.gguf --jinja --port 8080 (or pass --model llamacpp:URL)",
  ollama: "start it: ollama serve (or pass --base-url URL)",
};

/**
 * `glassbox doctor`: is the server up, which models it has, the real context size, whether tool
 * calls are supported, and one tiny round trip through the same adapter a run uses.
 */
export async function doctor(args: CliArgs, out: (line: string) => void = (line) => console.log(line)): Promise<number> {
  const { config } = loadConfig(args.config, resolve(args.workspace ?? "."));
  const specText = args.model ?? config.model ?? (await discovered(args.baseUrl, out));
  if (typeof specText === "number") return specText;
  const spec = parseModelSpec(specText, args.baseUrl);
  out(`glassbox doctor · model ${specText}`);
  const access = serverAccess(args, config, spec.kind === "openai");
  const place: ServerPlace = { config, workspaceRoot: resolve(args.workspace ?? "."), access, modelName: args.modelName };
  const findings = [sandboxFinding(config), ...(await probe(spec, specText, config.model_options, place))];
  for (const finding of findings) out(redact(`${finding.ok ? "ok  " : "FAIL"}  ${finding.text}${finding.fix ? `\n      fix: ${finding.fix}` : ""}`));
  return findings.every((finding) => finding.ok) ? 0 : 1;
}

/**
 * No model named: the same discovery as `run` and the TUI. The one model found is checked in
 * depth (its spec is returned); several are listed, none is a failure (the exit code is returned).
 */
async function discovered(baseUrl: string | undefined, out: (line: string) => void): Promise<string | number> {
  const found = await findModels(baseUrl);
  out(`glassbox doctor · no model named: asking ${found.servers.map((server) => `${serverLabel(server.server)} at ${server.url}`).join(" and ")}`);
  for (const silent of silentServers(found)) out(`--    ${silent}`);
  for (const candidate of found.candidates) out(`ok    found --model ${candidate.spec}: ${describeCandidate(candidate)}`);
  if (found.candidates.length === 0) {
    out(`FAIL  no model answers\n      fix: ${START_A_SERVER}`);
    return 1;
  }
  if (found.candidates.length > 1) {
    out("several models answer: glassbox doctor --model SPEC checks one of them in depth");
    return 0;
  }
  return found.candidates[0]!.spec;
}

async function probe(spec: ModelSpec, name: string, configured: ModelOptions, place: ServerPlace): Promise<Finding[]> {
  if (spec.kind === "scripted") {
    const script = loadScript(spec.file);
    return [{ ok: true, text: `scripted model ${spec.file}: ${script.replies.length} replies, valid` }];
  }
  if (spec.kind === "gguf") return probeOwnServer(spec, name, configured, place);
  const options = ModelOptionsSchema.parse({ ...configured, max_tokens: 8 });
  const signal = AbortSignal.timeout(INFO_TIMEOUT_MS);
  const ask: Ask = async (url: string, body?: unknown) => {
    try {
      return await fetchJson(url, body, signal, undefined, place.access);
    } catch (error) {
      return { status: 0, json: null, excerpt: (error as Error).message };
    }
  };
  const server =
    spec.kind === "llamacpp"
      ? await llamaCppFindings(spec.baseUrl, ask, place.access ?? NO_ACCESS, place.config.tool_protocol ?? "auto")
      : spec.kind === "openai"
        ? await openAiFindings(spec.baseUrl, place, ask)
        : await ollamaFindings(spec.baseUrl, spec.model, options, ask, place.config.tool_protocol ?? "auto");
  const findings = [{ ok: true, text: keyLine(place.access ?? NO_ACCESS) }, ...server.findings];
  if (!server.reachable) return findings;
  findings.push(await roundTrip(spec, name, options, place, signal));
  const cap = Math.min(PROBE_TOKENS, configured.max_tokens);
  const probeModel = new ToolProtocolModel(createModel(spec, name, ModelOptionsSchema.parse({ ...configured, max_tokens: cap }), undefined, place), place.config.tool_protocol ?? "auto");
  const choice = await probeModel.toolProtocol(signal);
  findings.push({ ok: true, text: `tool protocol: ${choice.protocol} (${choice.why})` });
  findings.push(await toolCallProbe(probeModel, spec.kind, server.templateTools, AbortSignal.timeout(PROBE_TIMEOUT_MS), choice.protocol, cap));
  return findings;
}

/**
 * gguf: the server glassbox would start, started for the probes (its command line shown), then
 * stopped. What createModel refuses (no binary, a file that is not a whole GGUF) is a usage
 * error here as in `run`, exit 2; a server that starts and does not load is a FAIL like any probe.
 */
async function probeOwnServer(spec: Extract<ModelSpec, { kind: "gguf" }>, name: string, options: ModelOptions, place: ServerPlace): Promise<Finding[]> {
  const model = createModel(spec, name, options, undefined, place) as GgufModel;
  const command: Finding = { ok: true, text: `llama-server command: ${serverCommand(model.launch, 0).join(" ").replace("--port 0", "--port PORT")} (PORT: a free one)` };
  const plan = model.launch.plan;
  const planned: Finding[] = plan ? [{ ok: true, text: `window ${plan.window} tokens a slot: ${plan.windowReason}` }, ...(plan.cachePlan ? [{ ok: true, text: `cache: ${plan.cachePlan}` }] : [])] : [];
  try {
    const started = await model.start();
    const loaded: Finding = { ok: true, text: `started llama-server (pid ${started.pid}, port ${started.port}), model loaded in ${started.load_ms} ms; log ${started.log}` };
    return [command, ...planned, loaded, ...(await probe({ kind: "llamacpp", baseUrl: model.running!.url }, name, options, place))];
  } catch (error) {
    return [command, ...planned, { ok: false, text: `llama-server did not start: ${(error as Error).message}`, fix: "the log named above says why: a model this llama-server cannot load, or an argument of llama_server.args it does not know" }];
  } finally {
    await model.stop();
  }
}

/** One tiny request through the real adapter, timed. */
async function roundTrip(spec: ModelSpec, name: string, options: ModelOptions, place: ServerPlace, signal: AbortSignal): Promise<Finding> {
  const model = createModel(spec, name, options, undefined, place);
  const started = performance.now();
  let text = "";
  try {
    for await (const delta of model.reply({ messages: [{ role: "user", content: "Reply with the word OK." }], tools: [], signal })) {
      if (delta.type === "text") text += delta.text;
    }
  } catch (error) {
    return { ok: false, text: `round trip failed: ${(error as Error).message}`, fix: "check the server's log" };
  }
  const ms = Math.round(performance.now() - started);
  return { ok: true, text: `round trip ${ms} ms: ${JSON.stringify(text.trim().slice(0, 40))}` };
}

type Ask = (url: string, body?: unknown) => Promise<{ status: number; json: any; excerpt: string }>;

/** What a server says of itself; `reachable` false: nothing more to ask; `templateTools`: whether its chat template renders tools (null: it did not say). */
interface ServerFindings {
  findings: Finding[];
  reachable: boolean;
  templateTools: boolean | null;
}

/** A server that did not answer; a certificate it could not check is fixed by its CA, not by starting a server. */
function unreachable(why: string, fix: string): ServerFindings {
  const certificate = / over TLS: /.test(why);
  return { findings: [{ ok: false, text: `server not reachable: ${why}`, fix: certificate ? "trust the CA that signed the server's certificate with --ca-file FILE" : fix }], reachable: false, templateTools: null };
}

async function llamaCppFindings(baseUrl: string, ask: Ask, access: ServerAccess, protocol: ToolProtocolSetting): Promise<ServerFindings> {
  const health = await ask(`${baseUrl}/health`);
  if (health.status === 0) return unreachable(health.excerpt, START_SERVER.llamacpp);
  const findings: Finding[] = [
    health.status === 200
      ? { ok: true, text: `server up at ${baseUrl} (health: ${health.json?.status ?? "ok"})` }
      : { ok: false, text: `server at ${baseUrl} is not ready (HTTP ${health.status}: ${health.excerpt})`, fix: "wait for the model to load, then run doctor again" },
  ];
  const models = await ask(`${baseUrl}/v1/models`);
  const refused = keyRefusal(models.status, access);
  if (refused) return { findings: [...findings, { ok: false, text: refused, fix: KEY_FIX }], reachable: false, templateTools: null };
  const names = (models.json?.data ?? []).map((model: { id: string }) => model.id);
  findings.push({ ok: names.length > 0, text: `models: ${names.join(", ") || "none listed"}`, fix: names.length ? undefined : "start llama-server with -m MODEL.gguf" });
  const props = await ask(`${baseUrl}/props`);
  const nCtx = props.json?.default_generation_settings?.n_ctx;
  findings.push(
    typeof nCtx === "number"
      ? { ok: true, text: `context size ${nCtx} tokens per slot` }
      : { ok: false, text: "context size unknown (/props did not say)", fix: "use a newer llama-server" },
  );
  const caps = props.json?.chat_template_caps;
  const templateTools = typeof caps?.supports_tools === "boolean" ? caps.supports_tools : typeof caps?.supports_tool_calls === "boolean" ? caps.supports_tool_calls : null;
  findings.push(
    templateTools === false
      ? protocol === "native"
        ? { ok: false, text: "the chat template does not support tool calls, and tool_protocol is \"native\"", fix: "set \"tool_protocol\": \"auto\" in glassbox.json (glassbox then describes the tools in the system prompt), or start llama-server with --jinja" }
        : { ok: true, text: `the chat template has no tools: glassbox describes them in the system prompt (${PROMPTED})` }
      : { ok: true, text: `tool calls ${templateTools ? "supported by the chat template" : "not reported (assumed supported with --jinja)"}` },
  );
  return { findings, reachable: true, templateTools };
}

/** openai: the key, the models the server lists (which one is used), and whether it is llama.cpp. */
async function openAiFindings(baseUrl: string, place: ServerPlace, ask: Ask): Promise<ServerFindings> {
  const models = await ask(`${baseUrl}/v1/models`);
  if (models.status === 0) return unreachable(models.excerpt, "check the address, and --ca-file for a private CA");
  const refused = keyRefusal(models.status, place.access ?? NO_ACCESS);
  if (refused) return { findings: [{ ok: false, text: refused, fix: KEY_FIX }], reachable: false, templateTools: null };
  const listed: Array<{ id: string; owned_by?: string }> = Array.isArray(models.json?.data) ? models.json.data : [];
  const named = place.modelName ?? place.config.model_name;
  const using = named ?? (listed.length === 1 ? listed[0]!.id : null);
  const served = listed.some((model) => model.owned_by === "llamacpp") ? "llama.cpp" : (listed[0]?.owned_by ?? "an OpenAI-compatible server");
  const findings: Finding[] = [
    { ok: models.status === 200, text: `server up at ${baseUrl} (${served}); models: ${listed.map((model) => model.id).join(", ") || "none listed"}` },
    using ? { ok: true, text: `model: ${using}` } : { ok: false, text: `model: none chosen (${listed.length} listed)`, fix: "pass --model-name NAME (or \"model_name\" in glassbox.json)" },
  ];
  return { findings, reachable: using !== null, templateTools: null };
}

async function ollamaFindings(baseUrl: string, model: string, options: ModelOptions, ask: Ask, protocol: ToolProtocolSetting): Promise<ServerFindings> {
  const tags = await ask(`${baseUrl}/api/tags`);
  if (tags.status === 0) return unreachable(tags.excerpt, START_SERVER.ollama);
  const findings: Finding[] = [{ ok: tags.status === 200, text: `server up at ${baseUrl}` }];
  const names: string[] = (tags.json?.models ?? []).map((entry: { name: string }) => entry.name);
  const pulled = names.includes(model) || names.includes(`${model}:latest`);
  findings.push(
    pulled
      ? { ok: true, text: `model ${model} is pulled (of ${names.length}: ${names.join(", ")})` }
      : { ok: false, text: `model ${model} is not pulled (have: ${names.join(", ") || "none"})`, fix: `ollama pull ${model}` },
  );
  if (!pulled) return { findings, reachable: false, templateTools: null };
  const show = await ask(`${baseUrl}/api/show`, { model });
  const trained = modelContextLength(show.json);
  findings.push({ ok: true, text: `context: model trained for ${trained ?? "?"} tokens; glassbox asks for num_ctx ${windowOf(options)}` });
  const capabilities: string[] | undefined = show.json?.capabilities;
  const noTools = capabilities && !capabilities.includes("tools");
  findings.push(
    noTools && protocol === "native"
      ? { ok: false, text: `model ${model} does not support tool calls (capabilities: ${capabilities.join(", ")}), and tool_protocol is "native"`, fix: 'set "tool_protocol": "auto" in glassbox.json (glassbox then describes the tools in the system prompt)' }
      : noTools
        ? { ok: true, text: `model ${model} has no tools capability (capabilities: ${capabilities.join(", ")}): glassbox describes the tools in the system prompt (${PROMPTED})` }
        : { ok: true, text: `tool calls ${capabilities ? "supported" : "not reported"}` },
  );
  return { findings, reachable: true, templateTools: capabilities ? capabilities.includes("tools") : null };
}
