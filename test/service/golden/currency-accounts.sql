-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = "USD"
-- $5 = 100
-- $6 = 0
WITH entities AS (SELECT e.* FROM (SELECT a.id, a.name, a.currency, a.field1, a.field2, a.field3, a.field4, a.field5, a.field6, a.field7, a.field8, a.field9, a.field10, a.field11, a.field12, a.field13, a.field14, a.field15, a.field16, a.field17, a.field18, a.field19, a.field20, a.field21, a.field22, a.field23, a.field24, a.field25, a.field26, a.field27, a.field28, a.field29, a.field30 FROM accounts a WHERE a.organization_id = $1::BIGINT) e),
    daily AS (SELECT f.adplatform_account_id AS pa, f.day,
      sum(f.impressions) AS impressions, sum(f.clicks) AS clicks, sum(f.cost) AS cost, sum(f.conversions) AS conversions, sum(f.conversion_value) AS conversion_value, sum(f.calls) AS calls, sum(f.call_conversions) AS call_conversions, sum(f.call_conversions_fractional) AS call_conversions_fractional
    FROM rollup_platform_account_daily f
   WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL), buckets AS (SELECT l.account_id AS entity_id, d.pa AS pa, d.day AS day, d.impressions AS impressions, d.clicks AS clicks, d.cost AS cost, d.conversions AS conversions, d.conversion_value AS conversion_value, d.calls AS calls, d.call_conversions AS call_conversions, d.call_conversions_fractional AS call_conversions_fractional, (CAST(round((d.cost * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9))) AS m_cost, (CAST(round((d.conversion_value * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9))) AS m_conversion_value,
        NULL AS m_cost_with_markup, CASE WHEN p.currency <> ra.currency AND NOT (ra.published AND rp.published) THEN d.day END AS est_day,
         nullif(concat_ws(',', CASE WHEN p.currency <> ra.currency AND NOT rp.published THEN p.currency END, CASE WHEN p.currency <> ra.currency AND NOT ra.published THEN ra.currency END), '') AS est_currencies
      FROM daily d
      JOIN account_adplatform_links l ON l.adplatform_account_id = d.pa
      JOIN entities e ON e.id = l.account_id
      JOIN adplatform_accounts p ON p.id = d.pa
      LEFT JOIN fx_rates ra ON ra.day = d.day AND ra.currency = $4::VARCHAR AND ra.day BETWEEN $2::DATE AND $3::DATE
      LEFT JOIN fx_rates rp ON rp.day = d.day AND rp.currency = p.currency AND rp.day BETWEEN $2::DATE AND $3::DATE
      ),
    sums AS (SELECT b.entity_id, sum(b.impressions) AS s_impressions, sum(b.clicks) AS s_clicks, sum(b.m_cost) AS s_cost, sum(b.m_cost_with_markup) AS s_costWithMarkup, sum(b.conversions) AS s_conversions, sum(b.m_conversion_value) AS s_conversionValue, sum(b.calls) AS s_calls, sum(b.call_conversions) AS s_callConversions, sum(b.call_conversions_fractional) AS s_callConversionsFractional, min(b.est_day) AS est_first, max(b.est_day) AS est_last, nullif(array_to_string(list_distinct(list(b.est_currencies)), ','), '') AS est_currencies FROM buckets b GROUP BY ALL),
    
    
    report_rows AS (SELECT e.* REPLACE ($4::VARCHAR AS currency),
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional, s.est_first AS __est_first, s.est_last AS __est_last, s.est_currencies AS __est_currencies
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."name", r."currency", (r.s_clicks)::BIGINT AS st_0, (r.s_impressions)::BIGINT AS st_1, round((r.s_cost)::DOUBLE, 6) AS st_2, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC
     LIMIT $5::BIGINT OFFSET $6::BIGINT
