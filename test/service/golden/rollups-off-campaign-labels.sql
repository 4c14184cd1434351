-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = "sys.campaignGroup"
-- $5 = "campaignGroup"
-- $6 = 100
-- $7 = 0
WITH entities AS (SELECT e.* FROM (SELECT e.*, lv.label_value FROM (SELECT a.id, a.name, a.currency, a.field1, a.field2, a.field3, a.field4, a.field5, a.field6, a.field7, a.field8, a.field9, a.field10, a.field11, a.field12, a.field13, a.field14, a.field15, a.field16, a.field17, a.field18, a.field19, a.field20, a.field21, a.field22, a.field23, a.field24, a.field25, a.field26, a.field27, a.field28, a.field29, a.field30 FROM accounts a WHERE a.organization_id = $1::BIGINT) e JOIN (SELECT DISTINCT l.account_id AS account_id, cl.value AS label_value FROM account_adplatform_links l
               JOIN campaigns c ON c.adplatform_account_id = l.adplatform_account_id
               JOIN campaign_labels cl ON cl.campaign_id = c.id
              WHERE cl.name = $4 AND c.organization_id = $1::BIGINT) lv ON lv.account_id = e.id) e),
    daily AS (SELECT cl.value AS label_value, f.adplatform_account_id AS pa, f.day,
      sum(f.impressions) AS impressions, sum(f.clicks) AS clicks, sum(f.cost) AS cost, sum(f.conversions) AS conversions, sum(f.conversion_value) AS conversion_value, sum(f.calls) AS calls, sum(f.call_conversions) AS call_conversions, sum(f.call_conversions_fractional) AS call_conversions_fractional
    FROM fact_ad_daily f JOIN campaign_labels cl ON cl.campaign_id = f.campaign_id AND cl.name = $4
   WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL), buckets AS (SELECT l.account_id AS entity_id, d.label_value AS label_value, d.pa AS pa, d.day AS day, d.impressions AS impressions, d.clicks AS clicks, d.cost AS cost, d.conversions AS conversions, d.conversion_value AS conversion_value, d.calls AS calls, d.call_conversions AS call_conversions, d.call_conversions_fractional AS call_conversions_fractional, (CAST(round((d.cost * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9))) AS m_cost, (CAST(round((d.conversion_value * (ra.units_per_eur::DOUBLE / rp.units_per_eur::DOUBLE)) * 1e9) AS DECIMAL(38,0)) * CAST(0.000000001 AS DECIMAL(18,9))) AS m_conversion_value,
        NULL AS m_cost_with_markup, CASE WHEN p.currency <> ra.currency AND NOT (ra.published AND rp.published) THEN d.day END AS est_day,
         nullif(concat_ws(',', CASE WHEN p.currency <> ra.currency AND NOT rp.published THEN p.currency END, CASE WHEN p.currency <> ra.currency AND NOT ra.published THEN ra.currency END), '') AS est_currencies
      FROM daily d
      JOIN account_adplatform_links l ON l.adplatform_account_id = d.pa
      JOIN entities e ON e.id = l.account_id AND e.label_value = d.label_value
      JOIN adplatform_accounts p ON p.id = d.pa
      LEFT JOIN fx_rates ra ON ra.day = d.day AND ra.currency = e.currency AND ra.day BETWEEN $2::DATE AND $3::DATE
      LEFT JOIN fx_rates rp ON rp.day = d.day AND rp.currency = p.currency AND rp.day BETWEEN $2::DATE AND $3::DATE
      ),
    sums AS (SELECT b.entity_id, b.label_value, sum(b.impressions) AS s_impressions, sum(b.clicks) AS s_clicks, sum(b.m_cost) AS s_cost, sum(b.m_cost_with_markup) AS s_costWithMarkup, sum(b.conversions) AS s_conversions, sum(b.m_conversion_value) AS s_conversionValue, sum(b.calls) AS s_calls, sum(b.call_conversions) AS s_callConversions, sum(b.call_conversions_fractional) AS s_callConversionsFractional, min(b.est_day) AS est_first, max(b.est_day) AS est_last, nullif(array_to_string(list_distinct(list(b.est_currencies)), ','), '') AS est_currencies FROM buckets b GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional, s.est_first AS __est_first, s.est_last AS __est_last, s.est_currencies AS __est_currencies
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id AND s.label_value = e.label_value
    
    ) SELECT part, octet_length(part) AS bytes, total, est_first, est_last, est_currencies FROM (SELECT sorted.part_no, encode(CASE WHEN sorted.part_no > 0 THEN ',' ELSE '' END || string_agg(to_json(struct_pack("id" := sorted.c0, "name" := sorted.c1, "currency" := sorted.c2, "campaignLabel" := struct_pack("name" := sorted.c3, "value" := sorted.c4), "statistics" := struct_pack("clicks" := sorted.c5, "impressions" := sorted.c6, "cost" := sorted.c7)))::VARCHAR, ',' ORDER BY sorted.k0 ASC, sorted.k1 ASC)) AS part, max(sorted.total) AS total, strftime(min(sorted.__est_first), '%Y-%m-%d') AS est_first, strftime(max(sorted.__est_last), '%Y-%m-%d') AS est_last, string_agg(sorted.__est_currencies, ',') AS est_currencies
      FROM (SELECT page.*, 0 AS part_no FROM (SELECT r."id" AS c0, r."name" AS c1, r."currency" AS c2, $5::VARCHAR AS c3, r.label_value AS c4, (r.s_clicks)::BIGINT AS c5, (r.s_impressions)::BIGINT AS c6, round((r.s_cost)::DOUBLE, 6) AS c7, r.id AS k0, r.label_value AS k1, count(*) OVER () AS total, r.__est_first, r.__est_last, r.__est_currencies
      FROM report_rows r
      ORDER BY r.id ASC, r.label_value ASC LIMIT $6::BIGINT OFFSET $7::BIGINT) page) sorted GROUP BY sorted.part_no) ORDER BY part_no
