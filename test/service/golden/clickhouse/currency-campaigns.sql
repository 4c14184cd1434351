-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
-- {p4} = "USD"
-- {p5} = 100
-- {p6} = 0
WITH entities AS (SELECT e.* FROM (SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = {p1:Int64}) e),
    pa_rates AS (SELECT pa, day, factor, src_est, tgt_est, CASE WHEN src_est OR tgt_est THEN day END AS est_day
    FROM (SELECT p.id AS pa, rs.day AS day, toFloat64(rt.units_per_eur) / toFloat64(rs.units_per_eur) AS factor,
                 p.currency <> {p4:String} AND NOT rs.published AS src_est, p.currency <> {p4:String} AND NOT rt.published AS tgt_est
            FROM adplatform_accounts p
            JOIN fx_rates rs ON rs.currency = p.currency AND rs.day BETWEEN {p2:Date32} AND {p3:Date32}
            LEFT JOIN fx_rates rt ON rt.currency = {p4:String} AND rt.day = rs.day
           WHERE p.organization_id = {p1:Int64})),
    
    sums AS (SELECT f.campaign_id AS entity_id,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum((accurateCastOrNull((trunc(((f.cost * x.factor) * 1e9)) + trunc((((f.cost * x.factor) * 1e9) - trunc(((f.cost * x.factor) * 1e9))) * 2)), 'Decimal(38, 0)') * toDecimal128('0.000000001', 9))) AS s_cost, CAST(NULL AS Nullable(Float64)) AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum((accurateCastOrNull((trunc(((f.conversion_value * x.factor) * 1e9)) + trunc((((f.conversion_value * x.factor) * 1e9) - trunc(((f.conversion_value * x.factor) * 1e9))) * 2)), 'Decimal(38, 0)') * toDecimal128('0.000000001', 9))) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional, min(x.est_day) AS est_first, max(x.est_day) AS est_last, max(x.src_est) AS src_est, max(x.tgt_est) AS tgt_est
        FROM rollup_campaign_daily f LEFT JOIN pa_rates x ON x.pa = f.adplatform_account_id AND x.day = f.day WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} GROUP BY ALL),
    
    
    report_rows AS (SELECT e.* REPLACE ({p4:String} AS currency),
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional, s.est_first AS __est_first, s.est_last AS __est_last, nullif(arrayStringConcat(arrayFilter(x -> x IS NOT NULL, [CASE WHEN s.src_est THEN e.currency END, CASE WHEN s.tgt_est THEN {p4:String} END]), ','), '') AS __est_currencies
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."name", r."adPlatformAccountId", r."adPlatformAccountType", r."status", r."currency", toInt64(roundBankers((r.s_clicks))) AS st_0, toInt64(roundBankers((r.s_impressions))) AS st_1, ((trunc((toFloat64((r.s_cost)) * 1e6)) + trunc(((toFloat64((r.s_cost)) * 1e6) - trunc((toFloat64((r.s_cost)) * 1e6))) * 2)) / 1e6) AS st_2, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC
     LIMIT {p5:Int64} OFFSET {p6:Int64}
