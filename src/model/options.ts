import { z } from "zod";
import { PARSE_ONCE } from "../protocol/zod-start.ts";

/** The `model_options` of the config: one set of knobs, mapped to each server's own names. */
export const ModelOptionsSchema = z
  .object({
    temperature: z.number().min(0).max(5).optional(),
    seed: z.number().int().optional(),
    /** The reply cap: an uncapped small model can loop for minutes. */
    max_tokens: z.number().int().min(1).default(1024),
    /**
     * The window: Ollama's, always sent (without it the server silently cuts the front of a long
     * prompt; DEFAULT_NUM_CTX when unset), and the -c of a llama-server glassbox starts (the
     * GGUF's trained window when unset).
     */
    num_ctx: z.number().int().min(256).optional(),
    /** Silence from a server once its reply has begun: a stall. */
    idle_timeout_seconds: z.number().positive().default(60),
    /**
     * How long a reply may take to begin: a server on another machine queues requests under load
     * (vLLM with a full batch), and that wait is shown as waiting, not cut as a stall.
     */
    first_byte_timeout_seconds: z.number().positive().default(600),
    /**
     * How long a request the server could not take (connection refused or reset after it had
     * answered, `503 Loading model`) is sent again, with backoff: a restarted server does not
     * lose the run. 0: never.
     */
    reconnect_seconds: z.number().min(0).default(30),
    think: z.boolean().optional(),
    tool_choice: z.enum(["auto", "required", "none"]).optional(),
    chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
    /** Merged into every request body as-is, for a server's own knobs. */
    extra_body: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type ModelOptions = z.infer<typeof ModelOptionsSchema>;

/** The window asked for when the config names none (Ollama's num_ctx, a scripted model's window). */
export const DEFAULT_NUM_CTX = 8192;

export const windowOf = (options: ModelOptions): number => options.num_ctx ?? DEFAULT_NUM_CTX;

export const DEFAULT_MODEL_OPTIONS: ModelOptions = ModelOptionsSchema.parse({}, PARSE_ONCE);
