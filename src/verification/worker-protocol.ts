/** What a compiler process is asked: compile a standard JSON input (as text), or tell its version. */
export type WorkerRequest = { kind: 'compile'; input: string } | { kind: 'version' };

/** What it answers: the compiler's output (standard JSON, as text), its version, or why it could not. */
export type WorkerReply = { kind: 'output'; output: string } | { kind: 'version'; version: string } | { kind: 'failure'; message: string };
