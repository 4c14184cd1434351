-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
-- {p4} = "FACEBOOK"
WITH entities AS (SELECT e.* FROM (SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = {p1:Int64}) e WHERE e."adPlatformAccountType" = {p4:String}),
    
    sums AS (SELECT f.campaign_id AS entity_id, formatDateTime(toMonday(f.day), '%Y-%m-%d') AS seg_0,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, CAST(NULL AS Nullable(Float64)) AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_campaign_daily f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} AND f.campaign_id IN (SELECT id FROM entities) GROUP BY ALL),
    
    runs AS (SELECT f.campaign_id AS entity_id, formatDateTime(toMonday(f.day), '%Y-%m-%d') AS seg_0, f.adplatform_account_id AS pa, f.user_from, f.user_to
    FROM (SELECT *, 'UNKNOWN' AS device, 'SOCIAL' AS network FROM fact_audience_runs) f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} AND f.campaign_id IN (SELECT id FROM entities)), reach AS (SELECT entity_id, seg_0, coalesce(sum(greatest(0, user_to - greatest(user_from, coalesce(covered, user_from)))), 0) AS s_reach
    FROM (SELECT u.*, max(u.user_to) OVER (PARTITION BY entity_id, seg_0, u.pa ORDER BY u.user_from, u.user_to ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered
            FROM runs u) GROUP BY ALL),
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional, coalesce(rc.s_reach, 0) AS s_reach
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    LEFT JOIN reach rc ON rc.entity_id = e.id AND rc.seg_0 = s.seg_0), filtered AS (SELECT * FROM report_rows r)
       SELECT toInt64(roundBankers((r.s_impressions))) AS st_0, toInt64(roundBankers((r.s_clicks))) AS st_1, ((trunc((toFloat64((r.s_cost)) * 1e6)) + trunc(((toFloat64((r.s_cost)) * 1e6) - trunc((toFloat64((r.s_cost)) * 1e6))) * 2)) / 1e6) AS st_2, ((trunc((toFloat64((r.s_conversions)) * 1e6)) + trunc(((toFloat64((r.s_conversions)) * 1e6) - trunc((toFloat64((r.s_conversions)) * 1e6))) * 2)) / 1e6) AS st_3, ((trunc((toFloat64((r.s_conversionValue)) * 1e6)) + trunc(((toFloat64((r.s_conversionValue)) * 1e6) - trunc((toFloat64((r.s_conversionValue)) * 1e6))) * 2)) / 1e6) AS st_4, toFloat64((toFloat64((r.s_clicks)) / nullif(toFloat64((r.s_impressions)), 0))) AS st_5, toFloat64((toFloat64((r.s_cost)) / nullif(toFloat64((r.s_clicks)), 0))) AS st_6, toFloat64((toFloat64((r.s_conversions)) / nullif(toFloat64((r.s_clicks)), 0))) AS st_7, toFloat64((toFloat64((r.s_cost)) / nullif(toFloat64((r.s_conversions)), 0))) AS st_8, toInt64(roundBankers((r.s_reach))) AS st_9, toFloat64((toFloat64((r.s_impressions)) / nullif(toFloat64((r.s_reach)), 0))) AS st_10, r.__currencies
         FROM (SELECT coalesce(sum(s_impressions), 0) AS s_impressions, coalesce(sum(s_clicks), 0) AS s_clicks, coalesce(sum(s_cost), 0) AS s_cost, coalesce(sum(s_costWithMarkup), 0) AS s_costWithMarkup, coalesce(sum(s_conversions), 0) AS s_conversions, coalesce(sum(s_conversionValue), 0) AS s_conversionValue, coalesce(sum(s_calls), 0) AS s_calls, coalesce(sum(s_callConversions), 0) AS s_callConversions, coalesce(sum(s_callConversionsFractional), 0) AS s_callConversionsFractional, (SELECT coalesce(sum(greatest(0, user_to - greatest(user_from, coalesce(covered, user_from)))), 0) AS s_reach
    FROM (SELECT u.*, max(u.user_to) OVER (PARTITION BY u.pa ORDER BY u.user_from, u.user_to ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered
            FROM runs u LEFT SEMI JOIN filtered fr ON fr.id = u.entity_id AND fr.seg_0 = u.seg_0) ) AS s_reach,
                      nullif(arrayStringConcat(arraySort(groupUniqArray(currency)), ','), '') AS __currencies FROM filtered) r
