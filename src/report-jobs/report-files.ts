import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { syncDirectory } from '../store/sync-directory.js';

/** Which file a job's is: the organization's directory, the job id, the format. */
export interface ReportFileKey {
  readonly organizationId: number;
  readonly id: number;
  readonly format: string;
}

export interface WrittenFile {
  readonly bytes: number;
  /** Hex SHA-256 of the bytes as renamed into place. */
  readonly sha256: string;
  /** Line feeds seen: rows of CSV (plus its header) and NDJSON. */
  readonly lines: number;
}

/** What the writer reports as the bytes arrive; throwing stops the write (a quota). */
export type WriteProgress = (written: { bytes: number; lines: number }) => void;

const PARTIAL = '.partial';

/**
 * The stored report files, under `<data directory>/report-files/<organization>/<job id>.<format>`.
 * A file is written as `<name>.partial`, flushed to disk, then renamed: the final name only ever
 * holds a complete file, and a crash leaves at most a `.partial` that the next start removes.
 */
export class ReportFiles {
  constructor(readonly dir: string) {}

  pathOf(key: ReportFileKey): string {
    return path.join(this.dir, String(key.organizationId), `${key.id}.${key.format}`);
  }

  /**
   * Streams `source` into the job's file. `complete` is asked once every byte is on disk and
   * before the rename (an export says there whether it ended well). Resolves once the complete
   * file is in place with its size and digest; on any failure (source error, `progress` or
   * `complete` throwing) the partial file is gone and the source destroyed.
   */
  async write(
    key: ReportFileKey,
    source: Readable,
    progress: WriteProgress,
    complete: () => Promise<void>,
  ): Promise<WrittenFile> {
    const final = this.pathOf(key);
    const partial = `${final}${PARTIAL}`;
    fs.mkdirSync(path.dirname(final), { recursive: true, mode: 0o700 });
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    let lines = 0;
    const file = await fs.promises.open(partial, 'w', 0o600);
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        hash.update(chunk);
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
        progress({ bytes, lines });
        await file.write(chunk);
      }
      await file.sync();
      await complete();
    } catch (error) {
      source.destroy();
      await file.close().catch(() => undefined);
      fs.rmSync(partial, { force: true });
      throw error;
    }
    await file.close();
    fs.renameSync(partial, final);
    syncDirectory(path.dirname(final));
    return { bytes, sha256: hash.digest('hex'), lines };
  }

  remove(key: ReportFileKey): void {
    const final = this.pathOf(key);
    fs.rmSync(final, { force: true });
    fs.rmSync(`${final}${PARTIAL}`, { force: true });
  }

  /**
   * At start: removes partial files and files of jobs that are not SUCCEEDED (a crash between a
   * rename and its commit, or between a job's deletion and its file's).
   */
  removeLeftovers(kept: ReadonlySet<number>): number {
    if (!fs.existsSync(this.dir)) return 0;
    let removed = 0;
    for (const organization of fs.readdirSync(this.dir)) {
      const dir = path.join(this.dir, organization);
      if (!fs.statSync(dir).isDirectory()) continue;
      for (const name of fs.readdirSync(dir)) {
        const id = Number(/^(\d+)\.[a-z]+$/.exec(name)?.[1]);
        if (Number.isSafeInteger(id) && kept.has(id)) continue;
        fs.rmSync(path.join(dir, name), { force: true });
        removed++;
      }
    }
    return removed;
  }
}
