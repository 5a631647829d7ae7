import { fetchJson } from "../model/http.ts";
import { parseModelSpec } from "../model/model-spec.ts";
import { NO_SERVER_FIX } from "./event-view.ts";

/** Before the first run: does the model's server answer? null when it does (or there is none to ask), else what to say. */
export async function serverProblem(name: string, baseUrl: string | undefined): Promise<string | null> {
  if (name.startsWith("scripted:")) return null;
  try {
    const spec = parseModelSpec(name, baseUrl);
    // No server to ask: a scripted model has none, and glassbox starts a gguf: model's itself.
    if (spec.kind === "scripted" || spec.kind === "gguf") return null;
    const probe = spec.kind === "llamacpp" ? `${spec.baseUrl}/health` : `${spec.baseUrl}/api/tags`;
    const answer = await fetchJson(probe, undefined, AbortSignal.timeout(3000), 3000);
    if (answer.status === 0 || answer.status >= 500) throw new Error(answer.excerpt);
    return null;
  } catch {
    return `no model server answers for ${name}: ${NO_SERVER_FIX}`;
  }
}
