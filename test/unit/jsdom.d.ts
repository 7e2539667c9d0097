// The part of jsdom the docs test uses (docs-mermaid.test.ts). @types/jsdom
// is left out: its `/// <reference lib="dom" />` would put the browser's
// globals into every file of the program, where Node's are meant.
declare module 'jsdom' {
  import type { Context } from 'node:vm';

  export class JSDOM {
    constructor(html?: string, options?: { runScripts?: 'outside-only' | 'dangerously'; pretendToBeVisual?: boolean });
    readonly window: object;
    /** The window as a node:vm context, for running a script in it. */
    getInternalVMContext(): Context;
  }
}
