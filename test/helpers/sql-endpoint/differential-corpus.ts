import { addDays } from '../../../src/shared/dates.js';

/**
 * The differential corpus of the SQL endpoint (issue 41): SELECTs over the model's relations
 * written from templates, each run through the endpoint and on a real PostgreSQL 15 holding the
 * same rows (test/service/sql-endpoint-differential.test.ts). A statement is `ordered` only when
 * its ORDER BY is total (a unique key of the rows breaks every tie), else the two answers are
 * compared as multisets. No statement here divides an integer by an integer: PostgreSQL's
 * truncation there is the one difference the test asks about on its own.
 *
 * Dates are relative to the last generated day (yesterday, UTC), so the corpus is built when the
 * file is collected.
 */

export interface RestCheck {
  /** GET /reporting/v0/<path> */
  readonly path: string;
  /** The list's key in the answer. */
  readonly plural: string;
  readonly query: Readonly<Record<string, string>>;
  /** The SQL output columns that key a row, with the REST row's value for each. */
  readonly keys: readonly (readonly [column: string, fromRow: (row: RestRow) => string])[];
  /** SQL output column → REST statistic. */
  readonly statistics: Readonly<Record<string, string>>;
}

export interface RestRow {
  readonly id: number;
  readonly segments?: Readonly<Record<string, string>>;
  readonly statistics: Readonly<Record<string, number | null>>;
}

export interface DifferentialStatement {
  readonly family: string;
  readonly sql: string;
  readonly ordered: boolean;
  readonly rest?: RestCheck;
}

interface DailyRelation {
  readonly name: string;
  /** The entity the rows are of. */
  readonly key: string;
  /** Columns besides `day` and `key` that make a row unique. */
  readonly segments: readonly string[];
  readonly deviceNetwork: boolean;
}

const DAILY: readonly DailyRelation[] = [
  { name: 'campaign_daily', key: 'campaign_id', segments: ['device', 'network'], deviceNetwork: true },
  { name: 'ad_group_daily', key: 'ad_group_id', segments: ['device', 'network'], deviceNetwork: true },
  { name: 'ad_daily', key: 'ad_id', segments: ['device', 'network'], deviceNetwork: true },
  { name: 'keyword_daily', key: 'keyword_id', segments: ['device', 'network'], deviceNetwork: true },
  {
    name: 'adplatform_account_daily',
    key: 'adplatform_account_id',
    segments: ['device', 'network'],
    deviceNetwork: true,
  },
  {
    name: 'account_daily',
    key: 'account_id',
    segments: ['adplatform_account_id', 'device', 'network'],
    deviceNetwork: true,
  },
  { name: 'campaign_hourly', key: 'campaign_id', segments: ['hour', 'device', 'network'], deviceNetwork: true },
  { name: 'campaign_geo_daily', key: 'campaign_id', segments: ['country', 'region'], deviceNetwork: false },
  {
    name: 'campaign_conversion_action_daily',
    key: 'campaign_id',
    segments: ['conversion_action'],
    deviceNetwork: false,
  },
  { name: 'campaign_audience_daily', key: 'campaign_id', segments: ['age', 'gender'], deviceNetwork: false },
  {
    name: 'campaign_placement_daily',
    key: 'campaign_id',
    segments: ['publisher_platform', 'platform_position'],
    deviceNetwork: false,
  },
];

const SUMS = `count(*) AS n, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(cost) AS cost,
  sum(cost_with_markup) AS cost_with_markup, sum(conversions) AS conversions, sum(conversion_value) AS conversion_value,
  sum(calls) AS calls, sum(call_conversions) AS call_conversions, sum(call_conversions_fractional) AS call_conversions_fractional`;

export function differentialCorpus(lastDay: string): DifferentialStatement[] {
  const d = (n: number) => `'${addDays(lastDay, -n)}'`;
  const out: DifferentialStatement[] = [];
  const add = (family: string, sql: string, ordered = false, rest?: RestCheck) =>
    out.push({ family, sql: sql.replace(/\s+/g, ' ').trim(), ordered, ...(rest ? { rest } : {}) });

  // ---------------------------------------------------------------------------------------------
  // Filters over every daily relation: equality, IN, ranges, OR, NOT, BETWEEN, IS NULL.
  for (const r of DAILY) {
    const seg = r.segments.at(-1)!;
    const filters = r.deviceNetwork
      ? [
          `device = 'MOBILE' AND day >= DATE ${d(13)}`,
          `clicks > 0 AND (network IN ('SEARCH', 'DISPLAY') OR cost > 1.5)`,
          `day BETWEEN ${d(20)} AND ${d(10)} AND NOT (impressions < 10) AND device <> 'TABLET'`,
        ]
      : [
          `${seg} IS NOT NULL AND day >= DATE ${d(13)}`,
          `(clicks > 0 OR conversions > 0) AND ${seg} NOT IN ('x', 'y')`,
          `day BETWEEN ${d(20)} AND ${d(10)} AND NOT (impressions < 10)`,
        ];
    for (const where of filters)
      add('filter', `SELECT ${r.key}, ${SUMS} FROM ${r.name} WHERE ${where} GROUP BY ${r.key}`);
  }

  // ---------------------------------------------------------------------------------------------
  // GROUP BY several keys, HAVING, ORDER BY made total by the group keys.
  const grouped: [string, string[]][] = [
    ['campaign_daily', ['campaign_id', 'device']],
    ['campaign_daily', ['campaign_id', 'device', 'network']],
    ['campaign_daily', ['device', 'network', 'day']],
    ['ad_group_daily', ['campaign_id', 'ad_group_id', 'network']],
    ['ad_group_daily', ['device', 'day']],
    ['ad_daily', ['ad_group_id', 'device']],
    ['keyword_daily', ['campaign_id', 'device', 'network']],
    ['keyword_daily', ['keyword_id']],
    ['campaign_hourly', ['hour', 'device']],
    ['campaign_hourly', ['campaign_id', 'hour']],
    ['account_daily', ['account_id', 'day']],
    ['account_daily', ['account_id', 'device', 'network']],
    ['adplatform_account_daily', ['adplatform_account_id', 'day', 'device']],
    ['campaign_geo_daily', ['country', 'region']],
    ['campaign_geo_daily', ['campaign_id', 'country', 'day']],
    ['campaign_conversion_action_daily', ['conversion_action', 'day']],
  ];
  grouped.forEach(([relation, keys], i) => {
    const threshold = [0, 10, 100, 1000][i % 4];
    const order = i % 2 === 0 ? 'clicks DESC' : 'cost ASC';
    add(
      'group-having-order',
      `SELECT ${keys.join(', ')}, sum(clicks) AS clicks, sum(cost) AS cost, sum(impressions) AS impressions, count(*) AS rows
         FROM ${relation} GROUP BY ${keys.join(', ')} HAVING sum(impressions) >= ${threshold}
        ORDER BY ${order}, ${keys.join(', ')}`,
      true,
    );
  });
  add(
    'group-having-order',
    `SELECT device, network, count(DISTINCT campaign_id) AS campaigns, max(clicks) AS top FROM campaign_daily
      GROUP BY device, network HAVING count(*) > 100 AND max(clicks) >= 1 ORDER BY 3 DESC, 1, 2`,
    true,
  );
  add(
    'group-having-order',
    `SELECT day, sum(conversions) AS conversions FROM ad_daily GROUP BY day HAVING sum(conversions) > 0 ORDER BY day DESC`,
    true,
  );

  // ---------------------------------------------------------------------------------------------
  // Joins between daily relations and dimensions.
  add(
    'join',
    `SELECT c.name, c.status, sum(d.clicks) AS clicks, sum(d.cost) AS cost FROM campaign_daily d
       JOIN campaigns c ON c.id = d.campaign_id GROUP BY c.name, c.status`,
  );
  add(
    'join',
    `SELECT c.id, c.name, d.day, d.device, d.network, d.clicks FROM campaigns c
       JOIN campaign_daily d ON d.campaign_id = c.id WHERE d.day = DATE ${d(0)} AND c.status = 'ENABLED'`,
  );
  add(
    'join',
    `SELECT g.name AS ad_group, c.name AS campaign, sum(d.conversions) AS conversions FROM ad_group_daily d
       JOIN ad_groups g ON g.id = d.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
      WHERE d.day >= ${d(6)} GROUP BY g.name, c.name`,
  );
  add(
    'join',
    `SELECT a.ad_type, a.status, sum(d.impressions) AS impressions, sum(d.cost) AS cost FROM ad_daily d
       JOIN ads a ON a.id = d.ad_id GROUP BY a.ad_type, a.status`,
  );
  add(
    'join',
    `SELECT k.match_type, k.status, d.device, sum(d.clicks) AS clicks FROM keyword_daily d
       JOIN keywords k ON k.id = d.keyword_id GROUP BY k.match_type, k.status, d.device`,
  );
  add(
    'join',
    `SELECT a.name, a.currency, d.currency AS row_currency, sum(d.cost) AS cost, sum(d.cost_with_markup) AS with_markup
       FROM account_daily d JOIN accounts a ON a.id = d.account_id GROUP BY a.name, a.currency, d.currency`,
  );
  add(
    'join',
    `SELECT p.name, p.ad_platform_type, p.time_zone, sum(d.impressions) AS impressions FROM adplatform_account_daily d
       JOIN adplatform_accounts p ON p.id = d.adplatform_account_id GROUP BY p.name, p.ad_platform_type, p.time_zone`,
  );
  add(
    'join',
    `SELECT l.name, l.value, sum(d.clicks) AS clicks FROM campaign_daily d
       JOIN campaign_labels l ON l.campaign_id = d.campaign_id GROUP BY l.name, l.value`,
  );
  add(
    'join',
    `SELECT c.name, l.value AS team FROM campaigns c LEFT JOIN campaign_labels l ON l.campaign_id = c.id AND l.name = 'team'`,
  );
  add(
    'join',
    `SELECT c.id, t.clicks FROM campaigns c LEFT JOIN (SELECT campaign_id, sum(clicks) AS clicks FROM campaign_daily
      WHERE day = DATE ${d(1)} GROUP BY campaign_id) t ON t.campaign_id = c.id`,
  );
  add(
    'join',
    `SELECT g.id, g.name, d.day, d.clicks FROM ad_groups g RIGHT JOIN ad_group_daily d ON d.ad_group_id = g.id
      WHERE d.day = DATE ${d(2)} AND d.device = 'DESKTOP'`,
  );
  add(
    'join',
    `SELECT c.id AS campaign, g.id AS ad_group FROM campaigns c FULL JOIN ad_groups g ON g.campaign_id = c.id AND g.status = 'PAUSED'`,
  );
  add(
    'join',
    `SELECT a.day, a.device, a.clicks AS account_clicks, p.clicks AS platform_clicks FROM account_daily a
       JOIN adplatform_account_daily p USING (day, adplatform_account_id, device, network) WHERE a.day >= ${d(3)}`,
  );
  add(
    'join',
    `SELECT h.day, h.campaign_id, sum(h.clicks) AS hourly, min(d.clicks) AS daily FROM campaign_hourly h
       JOIN (SELECT day, campaign_id, sum(clicks) AS clicks FROM campaign_daily GROUP BY day, campaign_id) d
         ON d.day = h.day AND d.campaign_id = h.campaign_id
      WHERE h.day >= ${d(4)} GROUP BY h.day, h.campaign_id`,
  );
  add(
    'join',
    `SELECT k.text, g.name, sum(d.impressions) AS impressions FROM keyword_daily d, keywords k, ad_groups g
      WHERE k.id = d.keyword_id AND g.id = k.ad_group_id AND d.day = DATE ${d(0)} GROUP BY k.text, g.name`,
  );
  add(
    'join',
    `SELECT c.name, g.name, g.status FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id WHERE g.status = 'PAUSED'`,
  );
  add(
    'join',
    `SELECT x.id, y.id AS other FROM campaigns x CROSS JOIN campaigns y WHERE x.id < y.id AND x.status = y.status`,
  );
  add(
    'join',
    `SELECT a.account_id, l.name, l.value, p.currency FROM account_adplatform_links a
       JOIN account_labels l ON l.account_id = a.account_id JOIN adplatform_accounts p ON p.id = a.adplatform_account_id`,
  );

  // ---------------------------------------------------------------------------------------------
  // ORDER BY with NULLs (PostgreSQL: NULL is the largest value), each made total by an id.
  const nullable = [
    `SELECT c.id, l.value AS v FROM campaigns c LEFT JOIN campaign_labels l ON l.campaign_id = c.id AND l.name = 'team'`,
    `SELECT g.id, t.clicks AS v FROM ad_groups g LEFT JOIN (SELECT ad_group_id, sum(clicks) AS clicks FROM ad_group_daily
       WHERE day >= ${d(2)} AND clicks > 0 GROUP BY ad_group_id) t ON t.ad_group_id = g.id`,
    `SELECT k.id, t.last_day AS v FROM keywords k LEFT JOIN (SELECT keyword_id, max(day) AS last_day FROM keyword_daily
       WHERE clicks > 2 GROUP BY keyword_id) t ON t.keyword_id = k.id`,
  ];
  const directions = ['', ' ASC', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST', ' ASC NULLS LAST', ' DESC NULLS FIRST'];
  nullable.forEach((base, i) => {
    for (const direction of directions.slice(i === 1 ? 0 : 1, i === 1 ? directions.length : 6))
      add('order-nulls', `SELECT * FROM (${base}) s ORDER BY v${direction}, id`, true);
  });

  // ---------------------------------------------------------------------------------------------
  // LIMIT / OFFSET over total orders.
  add(
    'limit-offset',
    `SELECT day, campaign_id, device, network, clicks FROM campaign_daily ORDER BY day, campaign_id, device, network LIMIT 10 OFFSET 5`,
    true,
  );
  add(
    'limit-offset',
    `SELECT keyword_id, day, device, network, clicks FROM keyword_daily ORDER BY clicks DESC, keyword_id, day, device, network LIMIT 25`,
    true,
  );
  add('limit-offset', `SELECT id, name FROM campaigns ORDER BY id LIMIT 5 OFFSET 1000`, true);
  add('limit-offset', `SELECT id, name FROM campaigns ORDER BY id LIMIT 0`, true);
  add('limit-offset', `SELECT id FROM ads ORDER BY id DESC LIMIT ALL`, true);
  add('limit-offset', `SELECT id, text FROM keywords ORDER BY text, id OFFSET 1350`, true);
  add('limit-offset', `SELECT id, name FROM ad_groups ORDER BY name DESC, id FETCH FIRST 7 ROWS ONLY`, true);
  add(
    'limit-offset',
    `SELECT campaign_id, sum(cost) AS cost FROM campaign_daily GROUP BY campaign_id ORDER BY cost DESC, campaign_id LIMIT 3 OFFSET 2`,
    true,
  );

  // ---------------------------------------------------------------------------------------------
  // DISTINCT
  add('distinct', `SELECT DISTINCT device, network FROM ad_daily`);
  add('distinct', `SELECT DISTINCT status FROM keywords ORDER BY status`, true);
  add('distinct', `SELECT DISTINCT campaign_id FROM campaign_daily WHERE clicks > 5`);
  add('distinct', `SELECT count(DISTINCT campaign_id) AS campaigns, count(DISTINCT day) AS days FROM campaign_daily`);
  add(
    'distinct',
    `SELECT DISTINCT ON (campaign_id) campaign_id, day, clicks FROM campaign_daily
      ORDER BY campaign_id, clicks DESC, day, device, network`,
    true,
  );
  add('distinct', `SELECT DISTINCT match_type, status FROM keywords`);
  add('distinct', `SELECT DISTINCT country, region FROM campaign_geo_daily`);
  add('distinct', `SELECT DISTINCT l.name FROM campaign_labels l JOIN campaigns c ON c.id = l.campaign_id`);

  // ---------------------------------------------------------------------------------------------
  // CASE, COALESCE, NULLIF, GREATEST, LEAST
  add(
    'case-coalesce',
    `SELECT campaign_id, CASE WHEN sum(clicks) = 0 THEN 'none' WHEN sum(clicks) < 20 THEN 'few' ELSE 'many' END AS band
       FROM campaign_daily GROUP BY campaign_id`,
  );
  add(
    'case-coalesce',
    `SELECT CASE device WHEN 'MOBILE' THEN 'phone' WHEN 'TABLET' THEN 'phone' ELSE 'other' END AS kind, sum(impressions) AS impressions
       FROM campaign_daily GROUP BY 1`,
  );
  add(
    'case-coalesce',
    `SELECT c.id, coalesce(l.value, 'unassigned') AS team FROM campaigns c LEFT JOIN campaign_labels l ON l.campaign_id = c.id AND l.name = 'team'`,
  );
  add('case-coalesce', `SELECT id, coalesce(field2, field3, name) AS f FROM accounts`);
  add('case-coalesce', `SELECT id, coalesce(field21, 0) AS n, coalesce(field22, field21, -1) AS m FROM accounts`);
  add('case-coalesce', `SELECT day, nullif(clicks, 0) AS clicks FROM campaign_daily WHERE campaign_id = 1`);
  add(
    'case-coalesce',
    `SELECT day, greatest(clicks, 3) AS g, least(clicks, impressions, 7) AS l FROM campaign_daily WHERE campaign_id = 2`,
  );
  add(
    'case-coalesce',
    `SELECT campaign_id, sum(CASE WHEN device = 'DESKTOP' THEN cost ELSE 0 END) AS desktop, sum(CASE WHEN device <> 'DESKTOP' THEN cost END) AS other
       FROM campaign_daily GROUP BY campaign_id`,
  );
  add(
    'case-coalesce',
    `SELECT campaign_id, sum(cost) / nullif(sum(conversions), 0) AS cost_per_conversion FROM campaign_daily GROUP BY campaign_id`,
  );
  add(
    'case-coalesce',
    `SELECT ad_group_id, CASE WHEN sum(impressions) > 0 THEN sum(clicks) * 1.0 / sum(impressions) END AS ctr FROM ad_group_daily GROUP BY ad_group_id`,
  );
  add(
    'case-coalesce',
    `SELECT g.id, coalesce(t.clicks, 0) AS clicks FROM ad_groups g LEFT JOIN (SELECT ad_group_id, sum(clicks) AS clicks FROM ad_group_daily WHERE day = DATE ${d(0)} GROUP BY 1) t ON t.ad_group_id = g.id`,
  );
  add(
    'case-coalesce',
    `SELECT id, CASE WHEN status = 'ENABLED' AND ad_type = 'RESPONSIVE_SEARCH_AD' THEN 1 WHEN status = 'ENABLED' THEN 2 ELSE 3 END AS bucket FROM ads`,
  );

  // ---------------------------------------------------------------------------------------------
  // Window functions (each ordering made total where the function depends on row order).
  const w = 'campaign_daily';
  add(
    'window',
    `SELECT campaign_id, day, device, network, rank() OVER (PARTITION BY campaign_id ORDER BY clicks DESC) AS r FROM ${w}`,
  );
  add(
    'window',
    `SELECT campaign_id, day, clicks, dense_rank() OVER (ORDER BY clicks) AS r FROM ${w} WHERE device = 'MOBILE'`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, row_number() OVER (PARTITION BY campaign_id ORDER BY day, device, network) AS rn FROM ${w}`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, clicks, sum(clicks) OVER (PARTITION BY campaign_id) AS total FROM ${w}`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, sum(cost) OVER (PARTITION BY campaign_id, device ORDER BY day) AS running FROM ${w}`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, clicks, lag(clicks) OVER (PARTITION BY campaign_id, device, network ORDER BY day) AS previous FROM ${w}`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, lag(clicks, 2, -1) OVER (PARTITION BY campaign_id, device, network ORDER BY day) AS p2,
            lead(clicks) OVER (PARTITION BY campaign_id, device, network ORDER BY day) AS next FROM ${w}`,
  );
  add(
    'window',
    `SELECT day, clicks, sum(clicks) OVER (ORDER BY day ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS moving
       FROM (SELECT day, sum(clicks) AS clicks FROM ${w} GROUP BY day) t`,
  );
  add(
    'window',
    `SELECT day, avg(cost) OVER (ORDER BY day ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING) AS smooth
       FROM (SELECT day, sum(cost) AS cost FROM account_daily GROUP BY day) t`,
  );
  add(
    'window',
    `SELECT campaign_id, clicks, rank() OVER (ORDER BY clicks DESC) AS r, percent_rank() OVER (ORDER BY clicks DESC) AS pr,
            cume_dist() OVER (ORDER BY clicks DESC) AS cd FROM (SELECT campaign_id, sum(clicks) AS clicks FROM ${w} GROUP BY 1) t`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, ntile(4) OVER (ORDER BY campaign_id, day, device, network) AS quartile FROM ${w}`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, first_value(clicks) OVER (PARTITION BY campaign_id ORDER BY day, device, network) AS first,
            last_value(clicks) OVER (PARTITION BY campaign_id ORDER BY day, device, network ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last
       FROM ${w}`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, nth_value(clicks, 2) OVER (PARTITION BY campaign_id ORDER BY day, device, network
            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS second FROM ${w}`,
  );
  add(
    'window',
    `SELECT ad_group_id, day, sum(clicks) AS clicks, sum(sum(clicks)) OVER (PARTITION BY ad_group_id ORDER BY day) AS cumulative
       FROM ad_group_daily WHERE day >= ${d(9)} GROUP BY ad_group_id, day`,
  );
  add(
    'window',
    `SELECT keyword_id, clicks, r FROM (SELECT keyword_id, sum(clicks) AS clicks, rank() OVER (ORDER BY sum(clicks) DESC) AS r
       FROM keyword_daily GROUP BY keyword_id) t WHERE r <= 10`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, count(*) OVER w AS n, max(clicks) OVER w AS top FROM ${w}
     WINDOW w AS (PARTITION BY campaign_id, device)`,
  );
  add(
    'window',
    `SELECT campaign_id, day, device, network, clicks - lag(clicks, 1, 0) OVER (PARTITION BY campaign_id, device, network ORDER BY day) AS delta
       FROM ${w} ORDER BY campaign_id, device, network, day`,
    true,
  );
  add(
    'window',
    `SELECT hour, clicks, sum(clicks) OVER (ORDER BY hour RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running
       FROM (SELECT hour, sum(clicks) AS clicks FROM campaign_hourly GROUP BY hour) t ORDER BY hour`,
    true,
  );

  // ---------------------------------------------------------------------------------------------
  // Common table expressions
  add(
    'cte',
    `WITH t AS (SELECT campaign_id, sum(clicks) AS clicks FROM campaign_daily GROUP BY campaign_id) SELECT * FROM t WHERE clicks > 50`,
  );
  add(
    'cte',
    `WITH a AS (SELECT campaign_id, sum(cost) AS cost FROM campaign_daily GROUP BY 1),
          b AS (SELECT campaign_id, sum(cost) AS cost FROM ad_group_daily GROUP BY 1)
     SELECT a.campaign_id, a.cost, b.cost AS from_ad_groups FROM a FULL JOIN b ON b.campaign_id = a.campaign_id`,
  );
  add(
    'cte',
    `WITH daily AS (SELECT day, sum(clicks) AS clicks FROM campaign_daily GROUP BY day)
     SELECT day, clicks FROM daily WHERE clicks >= (SELECT avg(clicks) FROM daily)`,
  );
  add(
    'cte',
    `WITH top AS (SELECT keyword_id FROM keyword_daily GROUP BY keyword_id HAVING sum(clicks) > 5)
     SELECT k.match_type, count(*) AS keywords FROM keywords k JOIN top ON top.keyword_id = k.id GROUP BY k.match_type`,
  );
  add(
    'cte',
    `WITH x(campaign, clicks) AS (SELECT campaign_id, sum(clicks) FROM campaign_daily WHERE device = 'MOBILE' GROUP BY 1)
     SELECT campaign, clicks FROM x ORDER BY clicks DESC, campaign`,
    true,
  );
  add(
    'cte',
    `WITH g AS (SELECT id, campaign_id FROM ad_groups), c AS (SELECT id, name FROM campaigns WHERE status <> 'REMOVED')
     SELECT c.name, count(g.id) AS ad_groups FROM c LEFT JOIN g ON g.campaign_id = c.id GROUP BY c.name`,
  );
  add(
    'cte',
    `WITH d AS MATERIALIZED (SELECT ad_id, sum(impressions) AS impressions FROM ad_daily GROUP BY ad_id)
     SELECT a.ad_type, sum(d.impressions) AS impressions FROM ads a JOIN d ON d.ad_id = a.id GROUP BY a.ad_type`,
  );
  add(
    'cte',
    `WITH outer_cte AS (WITH inner_cte AS (SELECT day, clicks FROM campaign_daily WHERE clicks > 3) SELECT day, count(*) AS n FROM inner_cte GROUP BY day)
     SELECT * FROM outer_cte`,
  );
  add(
    'cte',
    `WITH h AS (SELECT hour, sum(clicks) AS clicks FROM campaign_hourly GROUP BY hour)
     SELECT h1.hour, h1.clicks, h2.clicks AS next_hour FROM h h1 LEFT JOIN h h2 ON h2.hour = h1.hour + 1`,
  );
  add(
    'cte',
    `WITH w AS (SELECT campaign_id, day, sum(clicks) AS clicks FROM campaign_daily GROUP BY 1, 2)
     SELECT campaign_id, max(clicks) AS best_day_clicks, min(day) AS first_day FROM w GROUP BY campaign_id`,
  );

  // ---------------------------------------------------------------------------------------------
  // UNION / INTERSECT / EXCEPT
  add('set-op', `SELECT device AS v FROM campaign_daily UNION SELECT network FROM campaign_daily`);
  add(
    'set-op',
    `SELECT campaign_id FROM campaign_daily WHERE clicks > 5 UNION ALL SELECT id FROM campaigns WHERE status = 'PAUSED'`,
  );
  add(
    'set-op',
    `SELECT campaign_id FROM campaign_daily WHERE clicks > 5 INTERSECT SELECT id FROM campaigns WHERE status = 'ENABLED'`,
  );
  add('set-op', `SELECT id FROM campaigns EXCEPT SELECT campaign_id FROM campaign_daily`);
  add(
    'set-op',
    `SELECT device FROM ad_daily WHERE clicks > 3 INTERSECT ALL SELECT device FROM ad_daily WHERE cost > 2`,
  );
  add(
    'set-op',
    `SELECT network FROM keyword_daily WHERE clicks > 2 EXCEPT ALL SELECT network FROM keyword_daily WHERE clicks > 3`,
  );
  add(
    'set-op',
    `SELECT 'campaign' AS kind, id, name FROM campaigns UNION ALL SELECT 'ad group', id, name FROM ad_groups WHERE id < 10`,
  );
  add(
    'set-op',
    `(SELECT day, sum(clicks) AS clicks FROM campaign_daily GROUP BY day) UNION (SELECT day, sum(clicks) FROM ad_group_daily GROUP BY day)`,
  );
  add(
    'set-op',
    `SELECT id, name FROM campaigns WHERE status = 'ENABLED' UNION SELECT id, name FROM campaigns WHERE name LIKE 'Beach%' ORDER BY id`,
    true,
  );
  add(
    'set-op',
    `SELECT ad_group_id FROM keywords WHERE match_type = 'EXACT' INTERSECT SELECT ad_group_id FROM keywords WHERE match_type = 'BROAD'
     EXCEPT SELECT id FROM ad_groups WHERE status = 'REMOVED'`,
  );
  add('set-op', `SELECT count(*) AS n FROM (SELECT keyword_id FROM keyword_daily UNION SELECT id FROM keywords) u`);
  add(
    'set-op',
    `SELECT campaign_id, 'geo' AS source, sum(impressions) AS impressions FROM campaign_geo_daily GROUP BY campaign_id
     UNION ALL SELECT campaign_id, 'hourly', sum(impressions) FROM campaign_hourly GROUP BY campaign_id`,
  );

  // ---------------------------------------------------------------------------------------------
  // IN / EXISTS / ANY / ALL / scalar subqueries
  add(
    'subquery',
    `SELECT id, name FROM campaigns WHERE id IN (SELECT campaign_id FROM campaign_daily WHERE clicks > 10)`,
  );
  add('subquery', `SELECT id FROM campaigns WHERE id NOT IN (SELECT campaign_id FROM campaign_daily WHERE clicks > 3)`);
  add(
    'subquery',
    `SELECT id, name FROM campaigns c WHERE EXISTS (SELECT 1 FROM campaign_labels l WHERE l.campaign_id = c.id AND l.value = 'central')`,
  );
  add(
    'subquery',
    `SELECT id FROM ad_groups g WHERE NOT EXISTS (SELECT 1 FROM ad_group_daily d WHERE d.ad_group_id = g.id AND d.clicks > 0)`,
  );
  add(
    'subquery',
    `SELECT id, (SELECT sum(clicks) FROM campaign_daily d WHERE d.campaign_id = c.id) AS clicks FROM campaigns c`,
  );
  add(
    'subquery',
    `SELECT c.id, (SELECT max(day) FROM campaign_daily d WHERE d.campaign_id = c.id AND d.clicks > 2) AS last_day FROM campaigns c
      ORDER BY last_day DESC, c.id`,
    true,
  );
  add(
    'subquery',
    `SELECT campaign_id, day, device, network FROM campaign_daily WHERE clicks > ALL (SELECT clicks FROM campaign_daily WHERE device = 'TABLET')`,
  );
  add(
    'subquery',
    `SELECT id FROM campaigns WHERE id = ANY (SELECT campaign_id FROM campaign_labels WHERE value = 'sales')`,
  );
  add(
    'subquery',
    `SELECT campaign_id, sum(clicks) AS clicks FROM campaign_daily GROUP BY campaign_id
     HAVING sum(clicks) > (SELECT avg(clicks) * 10 FROM campaign_daily)`,
  );
  add(
    'subquery',
    `SELECT * FROM (SELECT campaign_id, sum(clicks) AS c FROM campaign_daily GROUP BY 1) s WHERE c BETWEEN 10 AND 100`,
  );
  add(
    'subquery',
    `SELECT k.id, k.text FROM keywords k WHERE k.ad_group_id IN (SELECT id FROM ad_groups WHERE campaign_id IN (SELECT id FROM campaigns WHERE status = 'ENABLED'))
       AND k.match_type = 'EXACT' AND k.status = 'PAUSED'`,
  );
  add(
    'subquery',
    `SELECT day, clicks, (SELECT sum(clicks) FROM campaign_daily) AS total FROM (SELECT day, sum(clicks) AS clicks FROM campaign_daily GROUP BY day) t`,
  );
  add(
    'subquery',
    `SELECT g.campaign_id, count(*) AS groups FROM ad_groups g WHERE g.id IN (SELECT ad_group_id FROM ads WHERE ad_type = 'EXPANDED_TEXT_AD') GROUP BY 1`,
  );
  add(
    'subquery',
    `SELECT id FROM keywords k WHERE EXISTS (SELECT 1 FROM keyword_daily d WHERE d.keyword_id = k.id AND d.day = DATE ${d(0)} AND d.clicks > 0)`,
  );
  add(
    'subquery',
    `SELECT campaign_id, clicks FROM (SELECT campaign_id, sum(clicks) AS clicks FROM campaign_daily GROUP BY campaign_id) t
      WHERE clicks < ANY (SELECT sum(clicks) FROM ad_group_daily GROUP BY campaign_id)`,
  );

  add('subquery', `SELECT id FROM campaigns WHERE id = ANY (ARRAY[1, 2, 3, 500])`);
  add('subquery', `SELECT id, name FROM campaigns WHERE status IS DISTINCT FROM 'ENABLED'`);
  add('subquery', `SELECT id FROM campaigns WHERE (status = 'PAUSED') IS NOT TRUE`);
  add(
    'subquery',
    `SELECT c.id, t.clicks FROM campaigns c, LATERAL (SELECT sum(d.clicks) AS clicks FROM campaign_daily d WHERE d.campaign_id = c.id) t`,
  );
  add('join', `SELECT g.n, c.name FROM generate_series(1, 5) AS g(n) JOIN campaigns c ON c.id = g.n`);
  add('join', `SELECT * FROM campaign_labels NATURAL JOIN (SELECT id AS campaign_id, status FROM campaigns) c`);
  add(
    'aggregate',
    `SELECT device, network, sum(clicks) AS clicks FROM campaign_daily GROUP BY GROUPING SETS ((device), (network), ())`,
  );

  // ---------------------------------------------------------------------------------------------
  // Dates: date_trunc, extract / date_part, arithmetic, literals
  for (const unit of ['week', 'month', 'quarter'])
    add('date', `SELECT date_trunc('${unit}', day) AS bucket, sum(clicks) AS clicks FROM campaign_daily GROUP BY 1`);
  for (const unit of ['day', 'week', 'month', 'year'])
    add('date', `SELECT date_trunc('${unit}', day)::date AS bucket, sum(cost) AS cost FROM account_daily GROUP BY 1`);
  add(
    'date',
    `SELECT extract(year FROM day) AS y, extract(month FROM day) AS m, extract(day FROM day) AS d, sum(clicks) AS clicks FROM campaign_daily GROUP BY 1, 2, 3`,
  );
  add(
    'date',
    `SELECT extract(dow FROM day) AS dow, extract(isodow FROM day) AS isodow, sum(impressions) AS impressions FROM ad_group_daily GROUP BY 1, 2`,
  );
  add(
    'date',
    `SELECT DISTINCT day, extract(doy FROM day) AS doy, extract(week FROM day) AS week, extract(quarter FROM day) AS q FROM campaign_daily`,
  );
  add('date', `SELECT DISTINCT day, extract(epoch FROM day) AS epoch FROM campaign_daily`);
  add(
    'date',
    `SELECT date_part('month', day) AS m, date_part('dow', day) AS dow, count(*) AS n FROM campaign_daily GROUP BY 1, 2`,
  );
  add('date', `SELECT DISTINCT day, day + 7 AS next_week, day - 1 AS before FROM campaign_daily`);
  add('date', `SELECT DISTINCT day, day - DATE ${d(29)} AS days_in FROM campaign_daily`);
  add('date', `SELECT DISTINCT day + interval '1 day' AS next FROM campaign_daily WHERE day >= ${d(3)}`);
  add('date', `SELECT sum(clicks) AS clicks FROM campaign_daily WHERE day >= DATE ${d(6)} AND day < DATE ${d(6)} + 7`);
  add(
    'date',
    `SELECT DISTINCT make_date(extract(year FROM day)::integer, extract(month FROM day)::integer, 1) AS first_of_month FROM campaign_daily`,
  );

  // ---------------------------------------------------------------------------------------------
  // Strings
  const strings: [string, string][] = [
    ['upper(name)', 'campaigns'],
    ['lower(name)', 'campaigns'],
    ['length(name)', 'ad_groups'],
    ['char_length(text)', 'keywords'],
    ['substr(name, 3, 5)', 'campaigns'],
    ['substring(name FROM 2 FOR 4)', 'ad_groups'],
    ['left(name, 6)', 'campaigns'],
    ['right(text, 3)', 'keywords'],
    ["replace(name, ' | ', ' / ')", 'campaigns'],
    ["split_part(name, ' | ', 2)", 'campaigns'],
    ["strpos(name, 'Generic')", 'campaigns'],
    ["position('a' IN text)", 'keywords'],
    ['md5(name)', 'campaigns'],
    ["btrim('  ' || name || '  ')", 'campaigns'],
    ["trim(both 'x' FROM 'xx' || text || 'x')", 'keywords'],
    ["concat(name, ' #', id)", 'campaigns'],
    ["concat_ws(' / ', name, status)", 'ad_groups'],
    ["name || ' (' || status || ')'", 'campaigns'],
    ["starts_with(text, 'cheap')", 'keywords'],
  ];
  for (const [expression, relation] of strings) add('string', `SELECT id, ${expression} AS v FROM ${relation}`);
  add('string', `SELECT id, name FROM campaigns WHERE name LIKE '%Generic%' AND name NOT LIKE 'Ski%'`);
  add('string', `SELECT id, text FROM keywords WHERE text ILIKE '%CHEAP%' OR text LIKE '_a%'`);
  add('string', `SELECT id, name FROM campaigns WHERE name ~ 'Ski|Cruise'`);
  add('string', `SELECT id, name FROM ad_groups WHERE name ~* '^beach' AND name !~ '2$'`);
  add('string', `SELECT id FROM keywords WHERE text !~* 'flight'`);
  add(
    'string',
    `SELECT match_type, string_agg(DISTINCT status, ',' ORDER BY status) AS statuses FROM keywords GROUP BY match_type`,
  );

  // ---------------------------------------------------------------------------------------------
  // Casts
  add('cast', `SELECT DISTINCT day::text AS d, CAST(day AS varchar) AS v FROM campaign_daily`);
  add('cast', `SELECT campaign_id, clicks::text AS c, cost::text AS t FROM campaign_daily WHERE day = DATE ${d(0)}`);
  add(
    'cast',
    `SELECT campaign_id, cost::integer AS i, conversions::bigint AS b, cost::smallint AS s FROM campaign_daily WHERE day = DATE ${d(1)}`,
  );
  add(
    'cast',
    `SELECT campaign_id, cost::numeric(12, 2) AS c2, conversion_value::numeric(14, 4) AS v4 FROM campaign_daily WHERE day = DATE ${d(2)}`,
  );
  add(
    'cast',
    `SELECT campaign_id, sum(cost)::float8 AS f, sum(clicks)::double precision / 3 AS third FROM campaign_daily GROUP BY 1`,
  );
  add('cast', `SELECT id::text || ':' || name AS label FROM campaigns`);
  add(
    'cast',
    `SELECT id, '42'::integer + id AS i, '2026-03-01'::date AS d, 'true'::boolean AS b, '1.25'::numeric * 4 AS n FROM accounts`,
  );
  add(
    'cast',
    `SELECT campaign_id, sum(clicks)::numeric / sum(impressions) AS ctr FROM campaign_daily GROUP BY 1 HAVING sum(impressions) > 0`,
  );
  add('cast', `SELECT id, field21::bigint AS n, field1::text AS t FROM accounts`);
  add(
    'cast',
    `SELECT hour::bigint AS h, CAST(hour AS smallint) + 1 AS h1 FROM campaign_hourly WHERE day = DATE ${d(0)} AND campaign_id = 1`,
  );

  // ---------------------------------------------------------------------------------------------
  // Aggregates
  add('aggregate', `SELECT avg(clicks) AS a, avg(cost) AS c, min(cost) AS lo, max(cost) AS hi FROM campaign_daily`);
  add('aggregate', `SELECT device, stddev(clicks) AS s, variance(clicks) AS v FROM campaign_daily GROUP BY device`);
  add(
    'aggregate',
    `SELECT stddev_pop(cost) AS s, var_pop(cost) AS v, stddev_samp(impressions) AS si, var_samp(impressions) AS vi FROM ad_group_daily`,
  );
  add('aggregate', `SELECT min(text) AS first, max(text) AS last, min(id) AS lo FROM keywords`);
  add('aggregate', `SELECT min(day) AS first, max(day) AS last, count(DISTINCT day) AS days FROM keyword_daily`);
  add(
    'aggregate',
    `SELECT bool_and(clicks >= 0) AS a, bool_or(clicks > 20) AS o, every(impressions >= clicks) AS e FROM campaign_daily`,
  );
  add(
    'aggregate',
    `SELECT campaign_id, count(*) FILTER (WHERE clicks > 0) AS with_clicks, sum(cost) FILTER (WHERE device = 'MOBILE') AS mobile_cost
       FROM campaign_daily GROUP BY campaign_id`,
  );
  add('aggregate', `SELECT count(*) AS n, count(field2) AS f2, count(field21) AS f21 FROM accounts`);
  add(
    'aggregate',
    `SELECT sum(conversions) AS conversions, sum(call_conversions_fractional) AS fractional FROM keyword_daily`,
  );
  add('aggregate', `SELECT ad_id, sum(impressions) AS i FROM ad_daily GROUP BY ad_id HAVING count(*) > 20`);
  add('aggregate', `SELECT status, count(*) AS n FROM campaigns GROUP BY ROLLUP (status)`);
  // Unnamed outputs: PostgreSQL names both "sum", and a tool keys its fields on those names.
  add('aggregate', `SELECT sum(clicks), sum(cost), count(*), max(day) FROM campaign_daily`);
  add('aggregate', `SELECT device, network, sum(clicks) AS clicks FROM campaign_daily GROUP BY CUBE (device, network)`);

  // ---------------------------------------------------------------------------------------------
  // The same questions as REST reports (also compared with the REST API's answer).
  for (const statement of restCorpus(lastDay)) out.push(statement);
  return out;
}

const STATISTICS: Record<string, string> = {
  impressions: 'impressions',
  clicks: 'clicks',
  cost: 'cost',
  cost_with_markup: 'costWithMarkup',
  conversions: 'conversions',
  conversion_value: 'conversionValue',
  calls: 'calls',
  call_conversions: 'callConversions',
  call_conversions_fractional: 'callConversionsFractional',
};

function restCorpus(lastDay: string): DifferentialStatement[] {
  const from = (n: number) => addDays(lastDay, -n);
  const out: DifferentialStatement[] = [];
  const pick = (...names: string[]) => Object.fromEntries(names.map((n) => [n, STATISTICS[n]!]));
  const sums = (stats: Record<string, string>) =>
    Object.keys(stats)
      .map((n) => `sum(${n}) AS ${n}`)
      .join(', ');
  const id: readonly [string, (row: RestRow) => string] = ['id', (row) => String(row.id)];
  const segment =
    (name: string): ((row: RestRow) => string) =>
    (row) =>
      row.segments?.[name] ?? '';
  const add = (
    relation: string,
    key: string,
    days: number,
    path: string,
    plural: string,
    stats: Record<string, string>,
    extra: { segments?: string; sqlSegments?: [string, string][] } = {},
  ) => {
    const start = from(days - 1);
    const sqlSegments = extra.sqlSegments ?? [];
    out.push({
      family: 'rest',
      sql: `SELECT ${key} AS id${sqlSegments.map(([sql, name]) => `, ${sql} AS "${name}"`).join('')}, ${sums(stats)}
              FROM ${relation} WHERE day BETWEEN '${start}' AND '${lastDay}'
             GROUP BY ${[key, ...sqlSegments.map(([sql]) => sql)].join(', ')}`
        .replace(/\s+/g, ' ')
        .trim(),
      ordered: false,
      rest: {
        path,
        plural,
        query: {
          startDate: start,
          endDate: lastDay,
          statistics: Object.values(stats).join(','),
          ...(extra.segments ? { segments: extra.segments } : {}),
        },
        keys: [id, ...sqlSegments.map(([, name]) => [name, segment(name)] as const)],
        statistics: stats,
      },
    });
  };
  const money = pick('impressions', 'clicks', 'cost', 'conversions', 'conversion_value');
  add('campaign_daily', 'campaign_id', 30, 'campaigns', 'campaigns', money);
  add(
    'campaign_daily',
    'campaign_id',
    7,
    'campaigns',
    'campaigns',
    pick('cost', 'cost_with_markup', 'calls', 'call_conversions'),
  );
  add('campaign_daily', 'campaign_id', 14, 'campaigns', 'campaigns', pick('clicks', 'cost'), {
    segments: 'DeviceType',
    sqlSegments: [['device', 'deviceType']],
  });
  add(
    'account_daily',
    'account_id',
    30,
    'accounts',
    'accounts',
    pick('impressions', 'clicks', 'cost', 'cost_with_markup', 'conversion_value'),
  );
  add('account_daily', 'account_id', 10, 'accounts', 'accounts', pick('cost', 'conversion_value', 'conversions'), {
    segments: 'Day',
    sqlSegments: [['day::text', 'day']],
  });
  add('account_daily', 'account_id', 30, 'accounts', 'accounts', pick('cost', 'cost_with_markup'), {
    segments: 'Month',
    sqlSegments: [["left(date_trunc('month', day)::date::text, 7)", 'month']],
  });
  add('adplatform_account_daily', 'adplatform_account_id', 30, 'adplatform-accounts', 'adPlatformAccounts', money);
  add(
    'ad_group_daily',
    'ad_group_id',
    14,
    'adgroups',
    'adGroups',
    pick('impressions', 'clicks', 'cost', 'call_conversions_fractional'),
  );
  add('ad_daily', 'ad_id', 7, 'ads', 'ads', pick('impressions', 'clicks', 'cost', 'cost_with_markup'));
  add('keyword_daily', 'keyword_id', 5, 'keywords', 'keywords', pick('impressions', 'clicks', 'cost', 'conversions'));
  add('campaign_daily', 'campaign_id', 21, 'campaigns', 'campaigns', pick('clicks', 'conversions'), {
    segments: 'Week',
    sqlSegments: [['(day - (extract(isodow FROM day)::integer - 1))::text', 'week']],
  });
  add('ad_group_daily', 'ad_group_id', 3, 'adgroups', 'adGroups', pick('conversions', 'conversion_value'), {
    segments: 'DeviceType',
    sqlSegments: [['device', 'deviceType']],
  });
  return out;
}
