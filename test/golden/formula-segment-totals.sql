-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = 10
-- $5 = 1
-- $6 = 0.5
-- $7 = 10
-- $8 = 1
-- $9 = 0.5
WITH entities AS (SELECT e.* FROM (SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = $1::BIGINT) e),
    
    sums AS (SELECT f.campaign_id AS entity_id, strftime(f.day, '%Y-%m-%d') AS seg_0,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_campaign_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    ), filtered AS (SELECT * FROM report_rows r)
       SELECT u.__bucket AS __bucket, u.seg_0 AS seg_0, u.st_0 AS st_0, u.st_1 AS st_1, u.st_2 AS st_2, u.st_3 AS st_3, u.fm_0 AS fm_0, u.fm_1 AS fm_1, u.__currencies AS __currencies FROM (SELECT 0 AS __bucket, NULL AS seg_0, t.st_0 AS st_0, t.st_1 AS st_1, t.st_2 AS st_2, t.st_3 AS st_3, t.fm_0 AS fm_0, t.fm_1 AS fm_1, t.__currencies AS __currencies FROM (SELECT (r.s_clicks)::BIGINT AS st_0, (r.s_impressions)::BIGINT AS st_1, round((r.s_cost)::DOUBLE, 6) AS st_2, ((r.s_clicks)::DOUBLE / nullif((r.s_impressions)::DOUBLE, 0))::DOUBLE AS st_3, round(((((r.s_cost))::DOUBLE / nullif(((r.s_clicks))::DOUBLE, 0)))::DOUBLE, 6) AS fm_0, round(((CASE WHEN ((r.s_clicks) > $7::DOUBLE) THEN ($8::DOUBLE)::DOUBLE ELSE ($9::DOUBLE)::DOUBLE END))::DOUBLE, 6) AS fm_1, r.__currencies
         FROM (SELECT coalesce(sum(s_impressions), 0) AS s_impressions, coalesce(sum(s_clicks), 0) AS s_clicks, coalesce(sum(s_cost), 0) AS s_cost, coalesce(sum(s_costWithMarkup), 0) AS s_costWithMarkup, coalesce(sum(s_conversions), 0) AS s_conversions, coalesce(sum(s_conversionValue), 0) AS s_conversionValue, coalesce(sum(s_calls), 0) AS s_calls, coalesce(sum(s_callConversions), 0) AS s_callConversions, coalesce(sum(s_callConversionsFractional), 0) AS s_callConversionsFractional,
                      string_agg(DISTINCT currency, ',' ORDER BY currency) AS __currencies FROM filtered) r) t UNION ALL SELECT 1 AS __bucket, r.seg_0 AS seg_0, (r.s_clicks)::BIGINT AS st_0, (r.s_impressions)::BIGINT AS st_1, round((r.s_cost)::DOUBLE, 6) AS st_2, ((r.s_clicks)::DOUBLE / nullif((r.s_impressions)::DOUBLE, 0))::DOUBLE AS st_3, round(((((r.s_cost))::DOUBLE / nullif(((r.s_clicks))::DOUBLE, 0)))::DOUBLE, 6) AS fm_0, round(((CASE WHEN ((r.s_clicks) > $4::DOUBLE) THEN ($5::DOUBLE)::DOUBLE ELSE ($6::DOUBLE)::DOUBLE END))::DOUBLE, 6) AS fm_1, r.__currencies
         FROM (SELECT g.seg_0 AS seg_0, g.s_impressions AS s_impressions, g.s_clicks AS s_clicks, g.s_cost AS s_cost, g.s_costWithMarkup AS s_costWithMarkup, g.s_conversions AS s_conversions, g.s_conversionValue AS s_conversionValue, g.s_calls AS s_calls, g.s_callConversions AS s_callConversions, g.s_callConversionsFractional AS s_callConversionsFractional, g.__currencies AS __currencies
        FROM (SELECT seg_0, coalesce(sum(s_impressions), 0) AS s_impressions, coalesce(sum(s_clicks), 0) AS s_clicks, coalesce(sum(s_cost), 0) AS s_cost, coalesce(sum(s_costWithMarkup), 0) AS s_costWithMarkup, coalesce(sum(s_conversions), 0) AS s_conversions, coalesce(sum(s_conversionValue), 0) AS s_conversionValue, coalesce(sum(s_calls), 0) AS s_calls, coalesce(sum(s_callConversions), 0) AS s_callConversions, coalesce(sum(s_callConversionsFractional), 0) AS s_callConversionsFractional,
        string_agg(DISTINCT currency, ',' ORDER BY currency) AS __currencies
        FROM filtered GROUP BY ALL) g) r) u
        ORDER BY u.__bucket, u.seg_0 ASC
