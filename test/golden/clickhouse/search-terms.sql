-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
-- {p4} = "top rated %"
-- {p5} = "a"
-- {p6} = 100
-- {p7} = 0
WITH entities AS (SELECT e.* FROM (SELECT k.id * 4 + t.slot AS id, CASE t.slot WHEN 0 THEN k.text WHEN 1 THEN k.text || ' in stock' WHEN 2 THEN 'top rated ' || k.text WHEN 3 THEN k.text || ' free shipping' END AS "searchTerm",
                      c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", k.ad_group_id AS "adGroupId",
                      k.id AS "keywordId", k.text AS "keywordText", c.ad_platform_type AS "adPlatformAccountType",
                      k.match_type AS "matchType", p.currency AS currency
                 FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                 CROSS JOIN (SELECT 0 AS slot UNION ALL SELECT 1 AS slot UNION ALL SELECT 2 AS slot UNION ALL SELECT 3 AS slot) t
                WHERE k.organization_id = {p1:Int64} AND t.slot <= k.id % 4
                  AND c.ad_platform_type IN ('GOOGLE_ADS', 'MICROSOFT_ADVERTISING')) e WHERE e."searchTerm" LIKE {p4:String} AND (position(e."keywordText", {p5:String}) > 0)),
    
    sums AS (SELECT f.search_term_id AS entity_id, toString(f.device) AS seg_0,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, CAST(NULL AS Nullable(Float64)) AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM fact_search_term_daily f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} AND f.search_term_id IN (SELECT id FROM entities) GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."searchTerm", r."adPlatformAccountId", r."campaignId", r."adGroupId", r."keywordId", r."keywordText", r."adPlatformAccountType", r."matchType", r."currency", r.seg_0, toInt64(roundBankers((r.s_clicks))) AS st_0, toInt64(roundBankers((r.s_impressions))) AS st_1, ((trunc((toFloat64((r.s_cost)) * 1e6)) + trunc(((toFloat64((r.s_cost)) * 1e6) - trunc((toFloat64((r.s_cost)) * 1e6))) * 2)) / 1e6) AS st_2, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC, r.seg_0 ASC
     LIMIT {p6:Int64} OFFSET {p7:Int64}
