import { closeSync, openSync, readSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { fetchJson } from "./http.ts";
import { NO_ACCESS, type ServerAccess } from "./access.ts";
import type { ModelSpec } from "./model-spec.ts";
import { canonicalJson } from "../protocol/canonical.ts";

/**
 * Which model a profile belongs to: the kind of server, the model's name as the server reports it,
 * and what else it says of the model (its chat template's digest, the file's). The same model
 * behind another address is the same model; another quantization or template is not.
 */
export type ModelIdentity = Record<string, string> & { server: string; model: string };

/** The server did not answer: `address` is where it was asked. */
export class ServerUnreachable extends Error {
  constructor(
    readonly address: string,
    why: string,
  ) {
    super(`cannot reach the model server at ${address}: ${why}`);
  }
}

/** Bytes of a GGUF file read for its digest: the header (names, template, shapes) and the first weights; whole files are gigabytes. */
const DIGEST_BYTES = 4 << 20;

/** The server's info endpoints answer at once; a run does not wait long on them for a profile. */
const INFO_TIMEOUT_MS = 5_000;

/** The identity of the model a spec names, asking its server where the server is what knows; ServerUnreachable when it does not answer. */
export async function modelIdentity(spec: ModelSpec, access: ServerAccess = NO_ACCESS, modelName?: string, signal = AbortSignal.timeout(INFO_TIMEOUT_MS)): Promise<ModelIdentity> {
  if (spec.kind === "scripted") return { server: "scripted", model: resolve(spec.file) };
  // llama-server reports the -m path as the model's id: glassbox passes the file's absolute path.
  if (spec.kind === "gguf") return { server: "llama.cpp", model: spec.path, file_digest: fileDigest(spec.path) };
  const ask = async (path: string, body?: unknown) => {
    try {
      return await fetchJson(`${spec.baseUrl}${path}`, body, signal, undefined, access);
    } catch (error) {
      throw new ServerUnreachable(spec.baseUrl, (error as Error).message);
    }
  };
  if (spec.kind === "ollama") {
    // What the model is (family, size, quantization) and its template, as Ollama shows it.
    const show = await ask("/api/show", { model: spec.model });
    const details = show.json?.details ? canonicalJson(show.json.details) : "";
    const template = typeof show.json?.template === "string" ? show.json.template : "";
    return { server: "ollama", model: spec.model, ...(details || template ? { model_digest: digest(`${details}\n${template}`) } : {}) };
  }
  const models = await ask("/v1/models");
  const listed: Array<{ id: string; owned_by?: string }> = Array.isArray(models.json?.data) ? models.json.data : [];
  const model = modelName ?? listed[0]?.id ?? "unknown";
  if (spec.kind === "openai" && !listed.some((entry) => entry.owned_by === "llamacpp")) return { server: listed[0]?.owned_by ?? "openai", model };
  const props = await ask("/props");
  const template = typeof props.json?.chat_template === "string" ? props.json.chat_template : "";
  return { server: "llama.cpp", model, ...(template ? { chat_template: digest(template) } : {}) };
}

function digest(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The file's size and a digest of its first DIGEST_BYTES: enough to tell two quantizations or conversions apart. */
function fileDigest(path: string): string {
  let descriptor: number | null = null;
  try {
    const size = statSync(path).size;
    descriptor = openSync(path, "r");
    const buffer = Buffer.alloc(Math.min(size, DIGEST_BYTES));
    readSync(descriptor, buffer, 0, buffer.length, 0);
    return `${size}:${digest(buffer)}`;
  } catch {
    return "unreadable";
  } finally {
    if (descriptor !== null) closeSync(descriptor);
  }
}
