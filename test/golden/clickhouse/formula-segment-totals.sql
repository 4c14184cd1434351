-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
-- {p4} = 10
-- {p5} = 1
-- {p6} = 0.5
-- {p7} = 10
-- {p8} = 1
-- {p9} = 0.5
WITH entities AS (SELECT e.* FROM (SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = {p1:Int64}) e),
    
    sums AS (SELECT f.campaign_id AS entity_id, formatDateTime(f.day, '%Y-%m-%d') AS seg_0,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, CAST(NULL AS Nullable(Float64)) AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_campaign_daily f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    ), filtered AS (SELECT * FROM report_rows r)
       SELECT u.__bucket AS __bucket, u.seg_0 AS seg_0, u.st_0 AS st_0, u.st_1 AS st_1, u.st_2 AS st_2, u.st_3 AS st_3, u.fm_0 AS fm_0, u.fm_1 AS fm_1, u.__currencies AS __currencies FROM (SELECT 0 AS __bucket, NULL AS seg_0, t.st_0 AS st_0, t.st_1 AS st_1, t.st_2 AS st_2, t.st_3 AS st_3, t.fm_0 AS fm_0, t.fm_1 AS fm_1, t.__currencies AS __currencies FROM (SELECT toInt64(roundBankers((r.s_clicks))) AS st_0, toInt64(roundBankers((r.s_impressions))) AS st_1, ((trunc((toFloat64((r.s_cost)) * 1e6)) + trunc(((toFloat64((r.s_cost)) * 1e6) - trunc((toFloat64((r.s_cost)) * 1e6))) * 2)) / 1e6) AS st_2, toFloat64((toFloat64((r.s_clicks)) / nullif(toFloat64((r.s_impressions)), 0))) AS st_3, ((trunc((toFloat64(((toFloat64(((r.s_cost))) / nullif(toFloat64(((r.s_clicks))), 0)))) * 1e6)) + trunc(((toFloat64(((toFloat64(((r.s_cost))) / nullif(toFloat64(((r.s_clicks))), 0)))) * 1e6) - trunc((toFloat64(((toFloat64(((r.s_cost))) / nullif(toFloat64(((r.s_clicks))), 0)))) * 1e6))) * 2)) / 1e6) AS fm_0, ((trunc((toFloat64(((CASE WHEN ((r.s_clicks) > {p7:Float64}) THEN toFloat64(({p8:Float64})) ELSE toFloat64(({p9:Float64})) END))) * 1e6)) + trunc(((toFloat64(((CASE WHEN ((r.s_clicks) > {p7:Float64}) THEN toFloat64(({p8:Float64})) ELSE toFloat64(({p9:Float64})) END))) * 1e6) - trunc((toFloat64(((CASE WHEN ((r.s_clicks) > {p7:Float64}) THEN toFloat64(({p8:Float64})) ELSE toFloat64(({p9:Float64})) END))) * 1e6))) * 2)) / 1e6) AS fm_1, r.__currencies
         FROM (SELECT coalesce(sum(s_impressions), 0) AS s_impressions, coalesce(sum(s_clicks), 0) AS s_clicks, coalesce(sum(s_cost), 0) AS s_cost, coalesce(sum(s_costWithMarkup), 0) AS s_costWithMarkup, coalesce(sum(s_conversions), 0) AS s_conversions, coalesce(sum(s_conversionValue), 0) AS s_conversionValue, coalesce(sum(s_calls), 0) AS s_calls, coalesce(sum(s_callConversions), 0) AS s_callConversions, coalesce(sum(s_callConversionsFractional), 0) AS s_callConversionsFractional,
                      nullif(arrayStringConcat(arraySort(groupUniqArray(currency)), ','), '') AS __currencies FROM filtered) r) t UNION ALL SELECT 1 AS __bucket, r.seg_0 AS seg_0, toInt64(roundBankers((r.s_clicks))) AS st_0, toInt64(roundBankers((r.s_impressions))) AS st_1, ((trunc((toFloat64((r.s_cost)) * 1e6)) + trunc(((toFloat64((r.s_cost)) * 1e6) - trunc((toFloat64((r.s_cost)) * 1e6))) * 2)) / 1e6) AS st_2, toFloat64((toFloat64((r.s_clicks)) / nullif(toFloat64((r.s_impressions)), 0))) AS st_3, ((trunc((toFloat64(((toFloat64(((r.s_cost))) / nullif(toFloat64(((r.s_clicks))), 0)))) * 1e6)) + trunc(((toFloat64(((toFloat64(((r.s_cost))) / nullif(toFloat64(((r.s_clicks))), 0)))) * 1e6) - trunc((toFloat64(((toFloat64(((r.s_cost))) / nullif(toFloat64(((r.s_clicks))), 0)))) * 1e6))) * 2)) / 1e6) AS fm_0, ((trunc((toFloat64(((CASE WHEN ((r.s_clicks) > {p4:Float64}) THEN toFloat64(({p5:Float64})) ELSE toFloat64(({p6:Float64})) END))) * 1e6)) + trunc(((toFloat64(((CASE WHEN ((r.s_clicks) > {p4:Float64}) THEN toFloat64(({p5:Float64})) ELSE toFloat64(({p6:Float64})) END))) * 1e6) - trunc((toFloat64(((CASE WHEN ((r.s_clicks) > {p4:Float64}) THEN toFloat64(({p5:Float64})) ELSE toFloat64(({p6:Float64})) END))) * 1e6))) * 2)) / 1e6) AS fm_1, r.__currencies
         FROM (SELECT g.seg_0 AS seg_0, g.s_impressions AS s_impressions, g.s_clicks AS s_clicks, g.s_cost AS s_cost, g.s_costWithMarkup AS s_costWithMarkup, g.s_conversions AS s_conversions, g.s_conversionValue AS s_conversionValue, g.s_calls AS s_calls, g.s_callConversions AS s_callConversions, g.s_callConversionsFractional AS s_callConversionsFractional, g.__currencies AS __currencies
        FROM (SELECT seg_0, coalesce(sum(s_impressions), 0) AS s_impressions, coalesce(sum(s_clicks), 0) AS s_clicks, coalesce(sum(s_cost), 0) AS s_cost, coalesce(sum(s_costWithMarkup), 0) AS s_costWithMarkup, coalesce(sum(s_conversions), 0) AS s_conversions, coalesce(sum(s_conversionValue), 0) AS s_conversionValue, coalesce(sum(s_calls), 0) AS s_calls, coalesce(sum(s_callConversions), 0) AS s_callConversions, coalesce(sum(s_callConversionsFractional), 0) AS s_callConversionsFractional,
        nullif(arrayStringConcat(arraySort(groupUniqArray(currency)), ','), '') AS __currencies
        FROM filtered GROUP BY ALL) g) r) u
        ORDER BY u.__bucket, u.seg_0 ASC
