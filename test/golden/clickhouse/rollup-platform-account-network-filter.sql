-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
-- {p4} = "SEARCH"
-- {p5} = 100
-- {p6} = 0
WITH entities AS (SELECT e.* FROM (SELECT p.id, p.name, p.ad_platform_type AS "adPlatformType", p.ad_platform_id AS "adPlatformId", p.currency,
                      p.time_zone AS "timeZone"
                 FROM adplatform_accounts p
                WHERE p.organization_id = {p1:Int64}) e),
    
    sums AS (SELECT f.adplatform_account_id AS entity_id, formatDateTime(f.day, '%Y-%m') AS seg_0, toString(f.device) AS seg_1,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, CAST(NULL AS Nullable(Float64)) AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_platform_account_daily f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} AND (f.network <> {p4:String}) GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0, s.seg_1 AS seg_1,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."name", r."adPlatformType", r."adPlatformId", r."currency", r."timeZone", r.seg_0, r.seg_1, toInt64(roundBankers((r.s_clicks))) AS st_0, toInt64(roundBankers((r.s_impressions))) AS st_1, ((trunc((toFloat64((r.s_cost)) * 1e6)) + trunc(((toFloat64((r.s_cost)) * 1e6) - trunc((toFloat64((r.s_cost)) * 1e6))) * 2)) / 1e6) AS st_2, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC, r.seg_0 ASC, r.seg_1 ASC
     LIMIT {p5:Int64} OFFSET {p6:Int64}
