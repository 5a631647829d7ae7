import { z } from "zod";
import { defineTool, type TodoItem } from "./tool.ts";

const MARKS: Record<TodoItem["status"], string> = { pending: "[ ]", in_progress: "[~]", done: "[x]" };

export const updateTodo = defineTool({
  name: "update_todo",
  description:
    "Replace your todo list with this one: the steps of your plan, each pending, in_progress or done. " +
    "Keep it current; it is shown to the user.",
  schema: z
    .object({
      items: z
        .array(
          z
            .object({
              text: z.string().min(1).max(300),
              status: z.enum(["pending", "in_progress", "done"]),
            })
            .strict(),
        )
        .max(50),
    })
    .strict(),
  needsApproval: false,
  async plan(args, context) {
    return {
      async execute() {
        context.todo.splice(0, context.todo.length, ...args.items);
        if (args.items.length === 0) return "Todo list cleared.";
        return "Todo list:\n" + args.items.map((item) => `${MARKS[item.status]} ${item.text}`).join("\n");
      },
    };
  },
});
