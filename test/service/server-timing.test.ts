import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReportingFixture, type ReportingFixture } from '../helpers/reporting-fixture.js';

/** `<name>;dur=<ms>` entries of a Server-Timing header. */
function durations(header: unknown): Map<string, number> {
  const entries = new Map<string, number>();
  for (const entry of String(header ?? '').split(', ')) {
    const match = /^([a-z+-]+);dur=(\d+\.\d{3})$/.exec(entry);
    if (!match) throw new Error(`not a Server-Timing entry: ${entry}`);
    entries.set(match[1]!, Number(match[2]));
  }
  return entries;
}

describe('Server-Timing (ADREPORT_SERVER_TIMING=true): where a report spent its time', () => {
  let fixture: ReportingFixture;
  let token: string;
  beforeAll(async () => {
    fixture = await startReportingFixture({ world: 'small-2orgs-30d', service: { serverTiming: true, cacheMb: 0 } });
    token = fixture.orgs[0]!.token;
  });
  afterAll(() => fixture.close());

  it('names each layer a report passed, wall and CPU, and a total at least their sum', async () => {
    const res = await fixture.report('campaigns', token, { startDate: fixture.yesterday, endDate: fixture.yesterday });
    expect(res.status).toBe(200);
    const timings = durations(res.headers['server-timing']);
    for (const layer of ['auth', 'parse', 'freshness', 'compile', 'execute', 'render', 'total'])
      for (const name of [layer, `${layer}-cpu`]) expect(timings.get(name), name).toBeGreaterThanOrEqual(0);
    const layers = [...timings].filter(([name]) => !name.endsWith('-cpu') && name !== 'total');
    const sum = layers.reduce((total, [, ms]) => total + ms, 0);
    // Layers are exclusive of each other (a statement prepared in the freshness look-up is `prepare`
    // alone); each was rounded to a microsecond.
    expect(timings.get('total')!).toBeGreaterThanOrEqual(sum - layers.length * 0.001);
  });

  it('times a refused request too, and only the layers it passed', async () => {
    const res = await fixture.report('campaigns', token, { startDate: 'yesterday' });
    expect(res.status).toBe(400);
    const names = [...durations(res.headers['server-timing']).keys()];
    expect(names).toEqual(expect.arrayContaining(['auth', 'total']));
    expect(names).not.toContain('execute');
  });
});

describe('Server-Timing off (the default)', () => {
  let fixture: ReportingFixture;
  beforeAll(async () => {
    fixture = await startReportingFixture({ world: 'small-2orgs-30d' });
  });
  afterAll(() => fixture.close());

  it('adds no header', async () => {
    const res = await fixture.report('campaigns', fixture.orgs[0]!.token, {});
    expect(res.status).toBe(200);
    expect(res.headers['server-timing']).toBeUndefined();
  });
});
