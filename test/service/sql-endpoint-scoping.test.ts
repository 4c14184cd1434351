import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { startReportingFixture, type GeneratedOrg, type ReportingFixture } from '../helpers/reporting-fixture.js';

/**
 * The SQL endpoint's organization scope against statements written to break it (issue 41): a WITH
 * query named like an internal table the model's bodies join, internal and schema-qualified
 * names, state left in the catalog sandbox for the next tenant, a statement reading both worlds.
 * Each expectation is read from the internal tables (fixture.sql), never from the endpoint.
 */
describe('SQL endpoint: organization scope', () => {
  let fixture: ReportingFixture;
  let own: GeneratedOrg;
  let other: GeneratedOrg;
  const clients: pg.Client[] = [];

  async function connect(org: GeneratedOrg): Promise<pg.Client> {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: fixture.service.sqlPort,
      user: org.clientId,
      password: org.clientSecret,
      database: 'anything',
      ssl: { rejectUnauthorized: false },
    });
    await client.connect();
    clients.push(client);
    return client;
  }

  async function sqlstate(client: pg.Client, sql: string): Promise<string | undefined> {
    try {
      await client.query(sql);
      return undefined;
    } catch (error) {
      return (error as { code?: string }).code;
    }
  }

  beforeAll(async () => {
    fixture = await startReportingFixture({ world: 'small-2orgs-30d', service: { sqlPort: 0 } });
    [own, other] = fixture.orgs as [GeneratedOrg, GeneratedOrg];
  }, 180_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await fixture?.close();
  });

  it('a WITH query named like an internal table scopes nothing: labels stay the organization’s own', async () => {
    const client = await connect(own);
    const expected = await fixture.sql<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM campaign_labels l JOIN campaigns c ON c.id = l.campaign_id WHERE c.organization_id = $1',
      [own.id],
    );
    const everyone = await fixture.sql<{ n: number }>('SELECT count(*)::INTEGER AS n FROM campaign_labels');
    // The attack only means something when other organizations have labels.
    expect(everyone[0]!.n).toBeGreaterThan(expected[0]!.n);
    const maxId = await fixture.sql<{ id: number }>('SELECT max(id)::INTEGER AS id FROM campaigns');
    const attack = await client.query(
      `WITH campaigns AS (SELECT i AS id, ${own.id} AS organization_id FROM generate_series(1, ${maxId[0]!.id}) AS g(i))
       SELECT count(*)::int AS n FROM campaign_labels`,
    );
    expect(attack.rows[0].n).toBe(expected[0]!.n);
    const accounts = await client.query(
      `WITH accounts AS (SELECT i AS id, ${own.id} AS organization_id FROM generate_series(1, 100000) AS g(i))
       SELECT count(*)::int AS n FROM account_adplatform_links`,
    );
    const ownLinks = await fixture.sql<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM account_adplatform_links l JOIN accounts a ON a.id = l.account_id WHERE a.organization_id = $1',
      [own.id],
    );
    expect(accounts.rows[0].n).toBe(ownLinks[0]!.n);
  });

  it('the other organization’s campaigns are not in any relation', async () => {
    const client = await connect(own);
    const theirs = await fixture.sql<{ id: number }>(
      'SELECT id::INTEGER AS id FROM campaigns WHERE organization_id = $1',
      [other.id],
    );
    expect(theirs.length).toBeGreaterThan(0);
    const ids = theirs.map((r) => r.id);
    const list = ids.join(', ');
    const seen = await client.query(
      `SELECT (SELECT count(*) FROM campaigns WHERE id IN (${list}))::int AS c,
              (SELECT count(*) FROM campaign_daily WHERE campaign_id IN (${list}))::int AS d`,
    );
    expect(seen.rows[0]).toEqual({ c: 0, d: 0 });
  });

  it('internal tables are not relations, qualified or not', async () => {
    const client = await connect(own);
    for (const name of [
      'api_clients',
      'main.api_clients',
      'main.campaigns',
      'fact_ad_daily',
      'rollup_campaign_daily',
      'adreport.main.accounts',
    ]) {
      expect(await sqlstate(client, `SELECT * FROM ${name}`), name).toBe('42P01');
    }
    expect(await sqlstate(client, "SELECT * FROM read_csv('/etc/passwd')")).toMatch(/^(42883|42P01|0A000)$/);
    expect(await sqlstate(client, 'SELECT c.relname, d.clicks FROM pg_catalog.pg_class c, campaign_daily d')).toBe(
      '0A000',
    );
  });

  it('server_version is the version of the PostgreSQL whose catalogs answer', async () => {
    const client = await connect(own);
    const sandbox = await client.query("SELECT current_setting('server_version') AS v");
    const reported = await client.query('SHOW server_version');
    expect(reported.rows[0].server_version).toBe(`${sandbox.rows[0].v} (adreport ${VERSION})`);
  });

  it('a setting set in the catalog sandbox is gone for the next statement and for other tenants', async () => {
    const mine = await connect(own);
    const theirs = await connect(other);
    await mine.query("SELECT set_config('adreport.probe', 'left behind', false)");
    const later = await theirs.query("SELECT current_setting('adreport.probe', true) AS v");
    expect(later.rows[0].v ?? '').not.toContain('left behind');
    const again = await mine.query("SELECT current_setting('adreport.probe', true) AS v");
    expect(again.rows[0].v ?? '').not.toContain('left behind');
  });
});
