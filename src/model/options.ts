import { z } from "zod";
import { PARSE_ONCE } from "../core/zod-start.ts";

/** The `model_options` of the config: one set of knobs, mapped to each server's own names. */
export const ModelOptionsSchema = z
  .object({
    temperature: z.number().min(0).max(5).optional(),
    seed: z.number().int().optional(),
    /** The reply cap: an uncapped small model can loop for minutes. */
    max_tokens: z.number().int().min(1).default(1024),
    /** Ollama's window, always sent: without it the server silently cuts the front of a long prompt. */
    num_ctx: z.number().int().min(256).default(8192),
    idle_timeout_seconds: z.number().positive().default(60),
    think: z.boolean().optional(),
    tool_choice: z.enum(["auto", "required", "none"]).optional(),
    chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
    /** Merged into every request body as-is, for a server's own knobs. */
    extra_body: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type ModelOptions = z.infer<typeof ModelOptionsSchema>;

export const DEFAULT_MODEL_OPTIONS: ModelOptions = ModelOptionsSchema.parse({}, PARSE_ONCE);
