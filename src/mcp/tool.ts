import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Refusal, ToolFailure, defineTool, type Tool } from "../tools/tool.ts";
import { describeHidden } from "../prompt/hidden.ts";
import { CallFailure, type RawTool, type ServerConnection } from "./client.ts";
import { compileInputSchema, refusalFor, SchemaProblem } from "./schema.ts";
import type { McpLimits } from "./limits.ts";
import { mcpToolName } from "./config.ts";

/** A server's tool name must survive every model API's tool-name rules once prefixed. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,48}$/;

/**
 * The one wrapper that turns a server's tool into a glassbox Tool, so approval, validation,
 * clipping and logging are the checkpoint's, as for every other tool. Throws SchemaProblem when
 * the tool cannot be offered safely.
 */
export function wrapServerTool(server: ServerConnection, definition: RawTool, digest: string, limits: McpLimits): Tool {
  if (!TOOL_NAME.test(definition.name)) throw new SchemaProblem(`its name ${JSON.stringify(definition.name.slice(0, 60))} is not letters, digits, _ and - (at most 48)`);
  const name = mcpToolName(server.name, definition.name);
  const compiled = compileInputSchema(definition.inputSchema, limits);
  const description = typeof definition.description === "string" ? definition.description : "";
  const hidden = describeHidden(JSON.stringify(definition));
  return defineTool<Record<string, unknown>>({
    name,
    description,
    schema: z.record(z.string(), z.unknown()),
    external: {
      parameters: compiled.shown,
      validate(value) {
        if (!compiled.validate(value)) throw new Refusal(refusalFor(name, compiled.validate.errors));
        return value;
      },
    },
    // Every call to another party's tool is asked about; its own annotations (readOnlyHint) change nothing.
    needsApproval: true,
    approval: {
      why: `${name} is a tool of the MCP server ${server.name} and matches no allow rule${hidden ? `; its definition holds ${hidden}` : ""}`,
      description,
      digest,
    },
    async plan(args, context) {
      return {
        async execute() {
          let result: CallToolResult;
          try {
            result = await server.call(definition.name, args, context.signal);
          } catch (error) {
            if (error instanceof CallFailure) throw new ToolFailure(`Failed: ${error.message}.`, error.message);
            throw error;
          }
          const text = resultText(server.name, definition.name, result);
          if (result.isError) throw new ToolFailure(text, `the MCP server ${server.name} answered with an error`);
          return text;
        },
      };
    },
  });
}

/** Text content as sent; images, audio and resources named, never inlined; marked as the server's. */
export function resultText(server: string, tool: string, result: CallToolResult): string {
  const parts = (result.content ?? []).map((item) => {
    switch (item.type) {
      case "text":
        return item.text;
      case "image":
      case "audio":
        return `[${item.type} ${item.mimeType}, ${Math.round((item.data.length * 3) / 4)} bytes, not shown]`;
      case "resource":
        return `[resource ${item.resource.uri}${item.resource.mimeType ? ` (${item.resource.mimeType})` : ""}, not shown]`;
      case "resource_link":
        return `[resource link ${item.uri}${item.mimeType ? ` (${item.mimeType})` : ""}]`;
      default:
        return `[${String((item as { type: unknown }).type)} content, not shown]`;
    }
  });
  if (!parts.length && result.structuredContent) parts.push(JSON.stringify(result.structuredContent));
  const head = result.isError ? `[error from MCP server ${server}, tool ${tool}]` : `[from MCP server ${server}, tool ${tool}]`;
  return `${head}\n${parts.join("\n") || "(no content)"}`;
}
