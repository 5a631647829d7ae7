import type { ToolProtocolSetting } from "../protocol/model.ts";
import type { ModelOptions } from "./options.ts";

/** The environment variables as the model factory reads them (process.env, or a test's own). */
export type Env = Record<string, string | undefined>;

/** What the model factory reads of the config (session/config.ts's Config fits). */
export interface ModelConfig {
  model_options: ModelOptions;
  /** openai: the model's name on the server. */
  model_name?: string;
  /** The llama-server glassbox starts for a `gguf:` model. */
  llama_server: { binary?: string; args: string[]; swa_full?: boolean | "auto" };
  /** The environment variable that holds the server's key. */
  api_key_env?: string;
  /** Extra CA certificates, for a server behind a private CA. */
  ca_file?: string;
  /** How tools reach the model (absent: auto). */
  tool_protocol?: ToolProtocolSetting;
}
