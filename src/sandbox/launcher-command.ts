/** The hidden first argument that makes the compiled binary act as the check launcher; its own module so main.ts loads nothing else for it. */
export const LAUNCHER_COMMAND = "__check-launcher";
