import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouse } from '../../src/clickhouse/clickhouse-connection.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startTestCluster, type TestCluster } from '../helpers/clickhouse-cluster.js';
import { poll } from '../helpers/poll.js';

/**
 * `adreport clickhouse cluster up/down` (issue 38 item 2) through the built bin: real chDB node
 * processes on 127.0.0.1, a Distributed insert routed to its organization's shard and written to
 * both of its replicas, up again on a running or a stopped cluster, down, and the usage and
 * missing-compiler lines. Then the test helper's cluster with a replica killed and restarted.
 * 4 nodes of ~200 MB idle (a wake-up a second each) at a time: the cli tier's two files at once
 * take them.
 */

interface Node {
  shard: number;
  replica: number;
  url: string;
  httpPort: number;
  tcpPort: number;
  pid: number;
  path: string;
}
interface Cluster {
  cluster: string;
  database: string;
  shards: number;
  replicas: number;
  nodes: Node[];
}

/** Gone: no process, or a zombie its new parent has not reaped yet (it serves nothing). */
function gone(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Every node whose pid file names a live process: SIGKILL, and wait until it is gone. */
async function killNodesIn(dir: string): Promise<void> {
  const pids = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'pid')))
    .map((e) => Number(fs.readFileSync(path.join(dir, e.name, 'pid'), 'utf8')));
  for (const pid of pids)
    try {
      if (!gone(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  await poll('the nodes gone', () => (pids.every(gone) ? true : undefined));
}

async function count(node: Node, sql: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${node.httpPort}/?database=adreport`, { method: 'POST', body: sql });
  const text = await response.text();
  if (!response.ok) throw new Error(text);
  return Number(text.trim());
}

const label = (n: Node) => `s${n.shard}r${n.replica}`;

describe('adreport clickhouse cluster up/down: 2 shards x 2 replicas through the bin', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-cluster-cli-'));
  const up = () => runCli(['clickhouse', 'cluster', 'up', '--shards', '2', '--replicas', '2', '--dir', dir, '--json']);
  let first: CliResult;
  let cluster: Cluster;

  beforeAll(async () => {
    first = await up();
    if (first.code === 0) cluster = JSON.parse(first.stdout) as Cluster;
  });

  afterAll(async () => {
    await killNodesIn(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints one JSON object with 4 nodes once each answers at its URL, in the database of its path', async () => {
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(cluster).toMatchObject({ cluster: 'adreport', database: 'adreport', shards: 2, replicas: 2 });
    expect(cluster.nodes.map(label)).toEqual(['s1r1', 's1r2', 's2r1', 's2r2']);
    const ports = cluster.nodes.flatMap((n) => [n.httpPort, n.tcpPort]);
    expect(new Set(ports).size).toBe(8);
    for (const node of cluster.nodes) {
      expect(Object.keys(node)).toEqual(['shard', 'replica', 'url', 'httpPort', 'tcpPort', 'pid', 'path']);
      expect(node.url).toBe(`http://127.0.0.1:${node.httpPort}/adreport`);
      expect(node.path).toBe(path.join(dir, label(node)));
      expect(first.stderr).toContain(`node ${label(node)} answering on http://127.0.0.1:${node.httpPort}`);
      expect(gone(node.pid)).toBe(false);
      // The URL as the service takes it (ADREPORT_CLICKHOUSE_URL): its path is the database.
      const clickhouse = await ClickHouse.connect({ kind: 'server', url: node.url });
      try {
        expect(await clickhouse.rows('SELECT currentDatabase() AS db, 1 AS one')).toEqual([{ db: 'adreport', one: 1 }]);
        const tables = await clickhouse.rows<{ name: string; engine: string }>(
          "SELECT name, engine FROM system.tables WHERE database = 'adreport' AND name LIKE 'fact_ad_daily%' ORDER BY name",
        );
        expect(tables).toEqual([
          { name: 'fact_ad_daily', engine: 'Distributed' },
          { name: 'fact_ad_daily_local', engine: 'MergeTree' },
        ]);
      } finally {
        await clickhouse.close();
      }
    }
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'cluster.json'), 'utf8'))).toEqual(cluster);
  });

  it('a row of organization 3 inserted through the Distributed fact_ad_daily lands on both replicas of shard 2 only', async () => {
    const [s1r1, s1r2, s2r1, s2r2] = cluster.nodes as [Node, Node, Node, Node];
    // Asynchronous, as a Distributed insert is by default: the node queues it and sends it to each replica.
    await count(
      s1r1,
      `INSERT INTO fact_ad_daily (organization_id, day, adplatform_account_id, campaign_id, ad_group_id, ad_id, impressions)
       VALUES (3, '2025-01-02', 30, 300, 1, 1, 7)`,
    );
    const local = (node: Node) => count(node, 'SELECT count() FROM fact_ad_daily_local WHERE organization_id = 3');
    await poll('the row on both replicas of shard 2', async () =>
      (await local(s2r1)) === 1 && (await local(s2r2)) === 1 ? true : undefined,
    );
    await poll("s1r1's queue for shard 2 sent", async () =>
      (await count(s1r1, 'SELECT sum(data_files) FROM system.distribution_queue')) === 0 ? true : undefined,
    );
    expect([await local(s1r1), await local(s1r2)]).toEqual([0, 0]);
    // Every node reads it through the Distributed table.
    for (const node of cluster.nodes)
      expect(await count(node, 'SELECT sum(impressions) FROM fact_ad_daily WHERE organization_id = 3')).toBe(7);
  });

  it('up again on the running cluster says so and prints the same JSON; other flags on it are refused', async () => {
    const again = await up();
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(cluster);
    expect(again.stderr).toContain(`already running: 4 node(s)`);
    const other = await runCli(['clickhouse', 'cluster', 'up', '--shards', '3', '--replicas', '2', '--dir', dir]);
    expect(other.code).toBe(1);
    expect(other.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(other.stderr).toMatch(
      /^adreport: .* of 2 shard\(s\) x 2 replica\(s\), not adreport \(database adreport\) of 3 x 2/,
    );
  });

  it('down stops every node and keeps the data; up again starts them on the same ports with the row', async () => {
    const down = await runCli(['clickhouse', 'cluster', 'down', '--dir', dir, '--json']);
    expect(down.code, down.stderr).toBe(0);
    expect(JSON.parse(down.stdout)).toEqual({
      dir,
      nodes: cluster.nodes.map(({ shard, replica, pid }) => ({ shard, replica, pid })),
    });
    await poll('every node process gone', () => (cluster.nodes.every((n) => gone(n.pid)) ? true : undefined));
    for (const node of cluster.nodes) {
      expect(fs.existsSync(path.join(node.path, 'pid'))).toBe(false);
      expect(fs.existsSync(path.join(node.path, 'data'))).toBe(true);
      await expect(count(node, 'SELECT 1')).rejects.toThrow();
    }
    const again = await up();
    expect(again.code, again.stderr).toBe(0);
    const restarted = JSON.parse(again.stdout) as Cluster;
    expect(restarted.nodes.map(({ pid: _, ...n }) => n)).toEqual(cluster.nodes.map(({ pid: _, ...n }) => n));
    for (const [i, node] of restarted.nodes.entries()) expect(node.pid).not.toBe(cluster.nodes[i]!.pid);
    const [, , s2r1, s2r2] = restarted.nodes as [Node, Node, Node, Node];
    for (const node of [s2r1, s2r2])
      expect(await count(node, 'SELECT count() FROM fact_ad_daily_local WHERE organization_id = 3')).toBe(1);
    cluster = restarted;
  });
});

describe('adreport clickhouse cluster: usage', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-cluster-usage-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each([
    [['up', '--shards', '2', '--replicas', '2'], /^adreport: --dir is required$/],
    [
      ['up', '--shards', '0', '--replicas', '2', '--dir', 'D'],
      /^adreport: --shards must be an integer from 1 to 1000, not "0"$/,
    ],
    [
      ['up', '--shards', '2', '--replicas', 'x', '--dir', 'D'],
      /^adreport: --replicas must be an integer from 1 to 1000, not "x"$/,
    ],
    [['up', '--replicas', '2', '--dir', 'D'], /^adreport: --shards is required$/],
    [
      ['up', '--shards', '1', '--replicas', '1', '--dir', 'D', '--cluster', 'a-b'],
      /--cluster must be a ClickHouse identifier/,
    ],
    [['up', '--shards', '1', '--replicas', '1', '--dir', 'D', '--nodes', '3'], /Unknown option '--nodes'/],
    [['down'], /^adreport: --dir is required$/],
  ])('%j exits 2 with one line naming the flag', async (args, message) => {
    const result = await runCli(['clickhouse', 'cluster', ...args], {}, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('down on a directory without a cluster exits 1 with one line', async () => {
    const result = await runCli(['clickhouse', 'cluster', 'down', '--dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `adreport: no cluster in ${dir} (no cluster.json): start one with adreport clickhouse cluster up\n`,
    );
  });

  it('without a C compiler on PATH: exit 1, one line saying how to install one, no node started', async () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'adreport-no-cc-'));
    const target = path.join(dir, 'cluster');
    try {
      // PATH holds node and nothing else.
      fs.symlinkSync(process.execPath, path.join(bin, 'node'));
      const result = await runCli(
        ['clickhouse', 'cluster', 'up', '--shards', '1', '--replicas', '1', '--dir', target],
        {
          PATH: bin,
        },
      );
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'adreport: no C compiler found to build the ClickHouse node launcher; install one with: apt-get install -y gcc\n',
      );
      expect(result.code).toBe(1);
      expect(fs.existsSync(path.join(target, 's1r1', 'pid'))).toBe(false);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
      fs.rmSync(target, { recursive: true, force: true });
    }
  });

  it('--help lists both commands under clickhouse, and says the data stays on down', async () => {
    const group = await runCli(['clickhouse', '--help']);
    expect(group.stdout).toContain('adreport clickhouse cluster up --shards N --replicas R --dir DIR');
    expect(group.stdout).toContain('adreport clickhouse cluster down --dir DIR');
    const down = await runCli(['clickhouse', 'cluster', 'down', '--help']);
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(/data, configs and logs stay/);
  });
});

describe('the test helper: 2 shards x 2 replicas, a replica killed under Distributed reads and restarted', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ shards: 2, replicas: 2 });
  });
  afterAll(async () => {
    const pids = cluster?.nodes.map((n) => n.pid) ?? [];
    await cluster?.close();
    expect(pids.every(gone)).toBe(true);
  });

  it('answers, loses a replica of shard 2 without losing a row, and takes it back with its data', async () => {
    expect(cluster.urls).toHaveLength(4);
    await cluster.query(
      1,
      1,
      `INSERT INTO campaigns (organization_id, adplatform_account_id, id, name)
       SETTINGS distributed_foreground_insert = 1 VALUES (3, 30, 300, 'c3'), (4, 40, 400, 'c4')`,
    );
    const read = () =>
      cluster.query<{ organization_id: number; name: string }>(
        1,
        1,
        "SELECT organization_id, name FROM campaigns ORDER BY organization_id SETTINGS load_balancing = 'in_order'",
      );
    const everything = [
      { organization_id: 3, name: 'c3' },
      { organization_id: 4, name: 'c4' },
    ];
    expect(await read()).toEqual(everything);
    expect(await cluster.query(2, 2, 'SELECT name FROM campaigns_local')).toEqual([{ name: 'c3' }]);

    const killed = cluster.node(2, 1).pid;
    await cluster.kill(2, 1);
    expect(gone(killed)).toBe(true);
    await expect(cluster.query(2, 1, 'SELECT 1')).rejects.toThrow();
    // in_order tries s2r1 first, finds it refusing, and reads s2r2.
    expect(await read()).toEqual(everything);

    const restarted = await cluster.restart(2, 1);
    expect(restarted.pid).not.toBe(killed);
    expect(restarted.httpPort).toBe(cluster.node(2, 1).httpPort);
    expect(await cluster.query(2, 1, 'SELECT name FROM campaigns_local')).toEqual([{ name: 'c3' }]);
  });
});
