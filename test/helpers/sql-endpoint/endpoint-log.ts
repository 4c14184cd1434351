/**
 * What the SQL endpoint writes to stderr: its wire server falls back to process.stderr when it is
 * given no log (src/sql-endpoint/sql-endpoint.ts passes none), so an internal error (XX000) or a
 * failed connection shows up there and not in the fixture's `errors` or `logs`. A test that must
 * see the service log no errors watches both; `stop()` puts stderr back as it was.
 */
export interface EndpointLog {
  /** Lines of the endpoint ("sql endpoint: ...") written since start. */
  readonly lines: string[];
  stop(): void;
}

export function watchEndpointLog(): EndpointLog {
  const lines: string[] = [];
  const original = process.stderr.write;
  const write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    for (const line of text.split('\n')) if (line.startsWith('sql endpoint:')) lines.push(line);
    return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  };
  process.stderr.write = write as typeof process.stderr.write;
  return {
    lines,
    stop() {
      if (process.stderr.write === (write as typeof process.stderr.write)) process.stderr.write = original;
    },
  };
}
