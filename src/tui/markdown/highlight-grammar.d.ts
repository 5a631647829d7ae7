/** A highlight.js grammar, only ever handed to registerLanguage (see highlight-js.d.ts for why it is typed here). */
declare const grammar: unknown;
export default grammar;
