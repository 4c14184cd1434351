-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
-- {p4} = 10
-- {p5} = 100
-- {p6} = 0
WITH entities AS (SELECT e.* FROM (SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = {p1:Int64}) e),
    
    sums AS (SELECT f.campaign_id AS entity_id,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, CAST(NULL AS Nullable(Float64)) AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_campaign_daily f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."name", r."adPlatformAccountId", r."adPlatformAccountType", r."status", r."currency", toInt64(roundBankers((r.s_clicks))) AS st_0, toInt64(roundBankers((r.s_impressions))) AS st_1, ((trunc((toFloat64((r.s_cost)) * 1e6)) + trunc(((toFloat64((r.s_cost)) * 1e6) - trunc((toFloat64((r.s_cost)) * 1e6))) * 2)) / 1e6) AS st_2, count(*) OVER () AS __total
      FROM report_rows r WHERE ((r.s_clicks) > {p4:Float64})
     ORDER BY r.id ASC
     LIMIT {p5:Int64} OFFSET {p6:Int64}
