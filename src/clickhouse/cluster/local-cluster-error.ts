/** What went wrong with a local cluster, for callers that act on it (the CLI prints the message). */
export type LocalClusterErrorCode =
  | 'no-compiler'
  | 'compile-failed'
  | 'no-libchdb'
  | 'no-ports'
  | 'node-exited'
  | 'node-silent'
  | 'node-unknown'
  | 'layout-differs'
  | 'no-cluster';

/** An expected failure of `adreport clickhouse cluster`: one line that says what to do. */
export class LocalClusterError extends Error {
  constructor(
    readonly code: LocalClusterErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'LocalClusterError';
  }
}
