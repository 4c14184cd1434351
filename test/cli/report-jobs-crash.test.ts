import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/store/database.js';
import { startServe } from '../helpers/cli.js';
import { copyWorld } from '../helpers/worlds.js';
import { basic, FORM, HttpClient } from '../helpers/http.js';
import { tempDir } from '../helpers/server.js';

const dir = tempDir('adreport-report-job-crash-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const BASE = '/reporting/v0/report-jobs';

function rawGet(url: string, ca: string, target: string, token: string): Promise<{ status: number; body: Buffer }> {
  const base = new URL(url);
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: base.hostname,
          port: base.port,
          path: target,
          ca,
          servername: 'localhost',
          headers: { authorization: `Bearer ${token}` },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        },
      )
      .on('error', reject);
  });
}

/** Partial files under the data directory's report-files, by job id. */
function partials(filesDir: string): Array<{ id: number; size: number }> {
  if (!fs.existsSync(filesDir)) return [];
  return fs.readdirSync(filesDir).flatMap((org) =>
    fs
      .readdirSync(path.join(filesDir, org))
      .filter((name) => name.endsWith('.partial'))
      .map((name) => ({
        id: Number(name.split('.')[0]),
        size: fs.statSync(path.join(filesDir, org, name), { throwIfNoEntry: false })?.size ?? 0,
      })),
  );
}

describe('a report job RUNNING when the process is killed (kill -9)', () => {
  it('reruns from the start after the restart: SUCCEEDED, the file equals the GET export, no partial file is left or served', async () => {
    const db = path.join(dir, 'adreport.duckdb');
    const [org] = (await copyWorld('small-2orgs-30d', dir)).organizations;
    const filesDir = path.join(dir, 'report-files');
    // One job at a time and one DuckDB thread: the job being written is surely the only one RUNNING.
    const env = { ADREPORT_REPORT_JOBS_CONCURRENCY: '1', ADREPORT_DB_THREADS: '1' };
    const first = await startServe(['--db', db], env);
    const ca = fs.readFileSync(`${db}.tls/cert.pem`, 'utf8');
    let http = new HttpClient(first.listening.url, ca);
    const token = (
      await http.request('POST', '/token', {
        headers: { authorization: basic(org!.clientId, org!.clientSecret), 'content-type': FORM },
        body: 'grant_type=client_credentials',
      })
    ).json.access_token as string;
    const auth = { authorization: `Bearer ${token}` };
    const last = new Date(Date.now() - 24 * 3600_000).toISOString().slice(0, 10);
    const firstDay = new Date(Date.now() - 30 * 24 * 3600_000).toISOString().slice(0, 10);
    const query = { startDate: firstDay, endDate: last, segments: 'Day' };
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await http.request('POST', BASE, {
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ reportJob: { endpoint: 'keywords', query, format: 'ndjson' } }),
      });
      expect(res.status).toBe(202);
      ids.push(res.json.reportJob.id as number);
    }
    // Kill as soon as a job has written part of its file.
    let seen: { id: number; size: number } | undefined;
    const deadline = Date.now() + 20_000;
    while (!seen && Date.now() < deadline) {
      seen = partials(filesDir).find((p) => p.size > 0);
      if (!seen) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    first.child.kill('SIGKILL');
    await first.exited;
    http.close();
    expect(seen).toBeDefined();
    const killedAt = Date.now();

    // What the crash left: that job RUNNING, its file not in place (a partial at most).
    const crashed = await Database.open(db, { readConnections: 1, maxQueued: 8 });
    const rows = await crashed.read((r) =>
      r.all<{ id: number; status: string; sha256: string | null }>(
        'SELECT id::INT AS id, status, sha256 FROM report_jobs ORDER BY id',
      ),
    );
    await crashed.close();
    expect(rows.find((r) => r.id === seen!.id)).toMatchObject({ status: 'RUNNING', sha256: null });
    expect(fs.existsSync(path.join(filesDir, String(org!.id), `${seen!.id}.ndjson`))).toBe(false);

    const second = await startServe(['--db', db], env);
    try {
      http = new HttpClient(second.listening.url, ca);
      const exported = await rawGet(
        second.listening.url,
        ca,
        `/reporting/v0/keywords?${new URLSearchParams({ ...query, format: 'ndjson' })}`,
        token,
      );
      expect(exported.status).toBe(200);
      for (const id of ids) {
        let job = (await http.get(`${BASE}/id/${id}`, auth)).json.reportJob;
        const until = Date.now() + 20_000;
        while ((job.status === 'QUEUED' || job.status === 'RUNNING') && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          job = (await http.get(`${BASE}/id/${id}`, auth)).json.reportJob;
        }
        expect(job.status).toBe('SUCCEEDED');
        const file = await rawGet(second.listening.url, ca, `${BASE}/id/${id}/file`, token);
        expect(file.status).toBe(200);
        expect(file.body.equals(exported.body)).toBe(true);
        expect(job.sha256).toBe(crypto.createHash('sha256').update(file.body).digest('hex'));
        // The killed job ran again from the start, after the restart.
        if (id === seen!.id) expect(Date.parse(job.startedAt)).toBeGreaterThan(killedAt);
      }
      expect(partials(filesDir)).toEqual([]);
      http.close();
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  }, 300_000);
});
