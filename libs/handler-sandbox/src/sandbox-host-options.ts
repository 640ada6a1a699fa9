/** The descriptor of the executor's pipe inside a sandbox process (0-2 are stdin, stdout and stderr). */
export const SANDBOX_CHANNEL_FD = 3;

/** What the executor tells a sandbox process at start (its first argument, as JSON). */
export interface HandlerSandboxHostOptions {
  /** Largest frame either side sends or accepts. */
  maxFrameBytes: number;
  /** The process's private writable directory, emptied before each run; its working directory. */
  scratchDir: string | null;
  /** JavaScript the executor transpiled from the package's TypeScript (see precompile.ts); null for none. */
  precompiledDir: string | null;
}
