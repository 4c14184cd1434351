-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = 100
-- $5 = 0
WITH entities AS (SELECT e.* FROM (SELECT a.id, a.name, a.currency, a.field1, a.field2, a.field3, a.field4, a.field5, a.field6, a.field7, a.field8, a.field9, a.field10, a.field11, a.field12, a.field13, a.field14, a.field15, a.field16, a.field17, a.field18, a.field19, a.field20, a.field21, a.field22, a.field23, a.field24, a.field25, a.field26, a.field27, a.field28, a.field29, a.field30 FROM accounts a WHERE a.organization_id = $1::BIGINT) e),
    daily AS (SELECT f.adplatform_account_id AS pa, f.day,
      sum(f.impressions) AS impressions, sum(f.clicks) AS clicks, sum(f.cost) AS cost, sum(f.conversions) AS conversions, sum(f.conversion_value) AS conversion_value, sum(f.calls) AS calls, sum(f.call_conversions) AS call_conversions, sum(f.call_conversions_fractional) AS call_conversions_fractional
    FROM rollup_platform_account_daily f
   WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL), buckets AS (SELECT l.account_id AS entity_id, d.pa AS pa, d.day AS day, d.impressions AS impressions, d.clicks AS clicks, d.cost AS cost, d.conversions AS conversions, d.conversion_value AS conversion_value, d.calls AS calls, d.call_conversions AS call_conversions, d.call_conversions_fractional AS call_conversions_fractional, (CAST(round((d.cost * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9))) AS m_cost, (CAST(round((d.conversion_value * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9))) AS m_conversion_value,
        NULL AS m_cost_with_markup
      FROM daily d
      JOIN account_adplatform_links l ON l.adplatform_account_id = d.pa
      JOIN entities e ON e.id = l.account_id
      JOIN adplatform_accounts p ON p.id = d.pa
      LEFT JOIN fx_rates ra ON ra.day = d.day AND ra.currency = e.currency AND ra.day BETWEEN $2::DATE AND $3::DATE
      LEFT JOIN fx_rates rp ON rp.day = d.day AND rp.currency = p.currency AND rp.day BETWEEN $2::DATE AND $3::DATE
      ),
    sums AS (SELECT b.entity_id, sum(b.impressions) AS s_impressions, sum(b.clicks) AS s_clicks, sum(b.m_cost) AS s_cost, sum(b.m_cost_with_markup) AS s_costWithMarkup, sum(b.conversions) AS s_conversions, sum(b.m_conversion_value) AS s_conversionValue, sum(b.calls) AS s_calls, sum(b.call_conversions) AS s_callConversions, sum(b.call_conversions_fractional) AS s_callConversionsFractional FROM buckets b GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    
    ) SELECT part, octet_length(part) AS bytes, total FROM (SELECT sorted.part_no, encode(CASE WHEN sorted.part_no > 0 THEN ',' ELSE '' END || string_agg(to_json(struct_pack("id" := sorted.c0, "name" := sorted.c1, "currency" := sorted.c2, "statistics" := struct_pack("clicks" := sorted.c3), "customFields" := struct_pack("field1" := sorted.c4, "field2" := sorted.c5, "field3" := sorted.c6, "field4" := sorted.c7, "field5" := sorted.c8, "field6" := sorted.c9, "field7" := sorted.c10, "field8" := sorted.c11, "field9" := sorted.c12, "field10" := sorted.c13, "field11" := sorted.c14, "field12" := sorted.c15, "field13" := sorted.c16, "field14" := sorted.c17, "field15" := sorted.c18, "field16" := sorted.c19, "field17" := sorted.c20, "field18" := sorted.c21, "field19" := sorted.c22, "field20" := sorted.c23, "field21" := sorted.c24, "field22" := sorted.c25, "field23" := sorted.c26, "field24" := sorted.c27, "field25" := sorted.c28, "field26" := sorted.c29, "field27" := sorted.c30, "field28" := sorted.c31, "field29" := sorted.c32, "field30" := sorted.c33), "labels" := sorted.c34))::VARCHAR, ',' ORDER BY sorted.k0 ASC)) AS part, max(sorted.total) AS total
      FROM (SELECT page.*, 0 AS part_no FROM (SELECT r."id" AS c0, r."name" AS c1, r."currency" AS c2, (r.s_clicks)::BIGINT AS c3, r.field1 AS c4, r.field2 AS c5, r.field3 AS c6, r.field4 AS c7, r.field5 AS c8, r.field6 AS c9, r.field7 AS c10, r.field8 AS c11, r.field9 AS c12, r.field10 AS c13, r.field11 AS c14, r.field12 AS c15, r.field13 AS c16, r.field14 AS c17, r.field15 AS c18, r.field16 AS c19, r.field17 AS c20, r.field18 AS c21, r.field19 AS c22, r.field20 AS c23, r.field21 AS c24, r.field22 AS c25, r.field23 AS c26, r.field24 AS c27, r.field25 AS c28, r.field26 AS c29, r.field27 AS c30, r.field28 AS c31, r.field29 AS c32, r.field30 AS c33, coalesce((SELECT to_json(map(list(lb.name ORDER BY lb.name), list(lb.value ORDER BY lb.name))) FROM account_labels lb WHERE lb.account_id = r.id AND lb.name NOT LIKE 'sys.%'), '{}'::JSON) AS c34, r.id AS k0, count(*) OVER () AS total
      FROM report_rows r
      ORDER BY r.id ASC LIMIT $4::BIGINT OFFSET $5::BIGINT) page) sorted GROUP BY sorted.part_no) ORDER BY part_no
