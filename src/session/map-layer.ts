import type { AgentEvent } from "../protocol/events.ts";
import { makeLayer, type PromptLayer } from "../prompt/layers.ts";
import { windowOf } from "../model/options.ts";
import { mapTokens } from "../map/map-config.ts";
import { repoMap } from "../map/repo-map.ts";
import { mapFiles } from "../tools/map-files.ts";
import type { Session } from "./session.ts";
import type { Config } from "./config.ts";
import type { Workspace } from "../files/workspace.ts";

const MAP_LAYER_HEAD = "The code's main definitions, most used first (`repo_map` gives more, `find_symbol` finds one):";

/** The map as a prompt layer (`map`, origin `map`), when the config asks for one; built from the workspace as it is now. */
export async function mapLayer(workspace: Workspace, config: Pick<Config, "repo_map" | "model_options">): Promise<PromptLayer | null> {
  if (!config.repo_map.layer) return null;
  const tokens = mapTokens(config.repo_map, windowOf(config.model_options));
  const map = await repoMap(mapFiles(workspace), { cacheRoot: workspace.root, tokens });
  return makeLayer("map", "map", `${MAP_LAYER_HEAD}\n${map}`);
}

/**
 * A run whose system prompt is the session's layers and, where the config says so, the map,
 * built once before the run's first event: every request of the run then sends the same prefix,
 * so the server's prompt cache holds; the next run builds it again from the code as it is then.
 */
export async function* withMapLayer(session: Session, run: (layers: PromptLayer[]) => AsyncGenerator<AgentEvent>): AsyncGenerator<AgentEvent> {
  const layer = await mapLayer(session.workspace, session.config);
  yield* run(layer ? [...session.layers, layer] : session.layers);
}
