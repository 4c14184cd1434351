import { describe, expect, it } from 'vitest';
import { explorerLink } from '../../src/mcp/explorer-link.js';
import { reportPath, reportQuery, runReportArguments } from '../../src/mcp/report-arguments.js';

describe('MCP report arguments as the REST query (issue 42)', () => {
  it('joins comma lists, repeats formulas (a formula may hold commas) and defaults limit to 100', () => {
    const args = runReportArguments.parse({
      endpoint: 'campaigns',
      statistics: ['clicks', 'cost'],
      sort: ['-statistics.cost', 'name'],
      formulas: ['a:max(statistics.clicks, 1):Integer', 'b:statistics.cost:Money'],
      filter: 'contains(name, "a,b")',
    });
    const query = reportQuery(args);
    expect(query.get('statistics')).toBe('clicks,cost');
    expect(query.get('sort')).toBe('-statistics.cost,name');
    expect(query.getAll('formulas')).toEqual(['a:max(statistics.clicks, 1):Integer', 'b:statistics.cost:Money']);
    expect(query.get('filter')).toBe('contains(name, "a,b")');
    expect(query.get('limit')).toBe('100');
    expect(query.has('endpoint')).toBe(false);
  });

  it('reports accounts by a campaign label under its own path, the label encoded', () => {
    expect(reportPath({ endpoint: 'accounts', campaignLabel: 'a/b c' })).toBe(
      '/reporting/v0/accounts/campaign-labels/name/a%2Fb%20c',
    );
    expect(reportPath({ endpoint: 'ads/facebook' })).toBe('/reporting/v0/ads/facebook');
  });

  it('refuses shapes the REST API would not get: a limit over 1,000, a list with an empty entry, an unknown endpoint', () => {
    expect(runReportArguments.safeParse({ endpoint: 'campaigns', limit: 1001 }).success).toBe(false);
    expect(runReportArguments.safeParse({ endpoint: 'campaigns', segments: [''] }).success).toBe(false);
    expect(runReportArguments.safeParse({ endpoint: 'markups' }).success).toBe(false);
  });
});

describe('the explorer link of a report', () => {
  it('holds every parameter the explorer shows, formulas one per line', () => {
    const query = new URLSearchParams({ dateRange: 'LAST_7_DAYS', segments: 'Day', limit: '50' });
    query.append('formulas', 'a:statistics.clicks:Integer');
    query.append('formulas', 'b:statistics.cost:Money');
    const link = new URL(explorerLink('https://h:1', 'campaigns', query)!);
    expect(link.origin + link.pathname).toBe('https://h:1/explorer');
    const state = new URLSearchParams(link.hash.slice(1));
    expect(Object.fromEntries(state)).toEqual({
      endpoint: 'campaigns',
      dateRange: 'LAST_7_DAYS',
      segments: 'Day',
      limit: '50',
      formulas: 'a:statistics.clicks:Integer\nb:statistics.cost:Money',
    });
    expect(link.hash).not.toContain('+');
  });

  it.each(['compare', 'totals', 'embed', 'name', 'attributionWindows'])(
    'is none with %s, which the explorer cannot show',
    (name) => {
      expect(explorerLink('https://h:1', 'campaigns', new URLSearchParams({ [name]: 'x' }))).toBeUndefined();
    },
  );
});
