import { messageChars, type Message } from "./messages.ts";

/**
 * What the model is sent: the system prompt and the record. The record itself is never edited;
 * trimming old tool output (the context manager) works on this view.
 */
export function modelView(systemPrompt: string, record: readonly Message[]): Message[] {
  return systemPrompt ? [{ role: "system", content: systemPrompt }, ...record] : [...record];
}

export function transcriptChars(messages: readonly Message[]): number {
  return messages.reduce((sum, message) => sum + messageChars(message), 0);
}
