-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
WITH entities AS (SELECT e.* FROM (SELECT a.id AS id, a.name AS name, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", a.ad_group_id AS "adGroupId",
                      c.ad_platform_type AS "adPlatformAccountType", a.ad_type AS "adType", a.status AS status, p.currency AS currency,
                      a.image_urls AS "__images", a.specific_fields AS "__specificFields"
                 FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE a.organization_id = {p1:Int64}) e),
    
    sums AS (SELECT f.ad_id AS entity_id,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, CAST(NULL AS Nullable(Float64)) AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM fact_ad_daily f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    
    ) SELECT concat('{"id":', ifNull(toJSONString(sorted.c0), 'null'), ',"name":', ifNull(toJSONString(sorted.c1), 'null'), ',"adPlatformAccountId":', ifNull(toJSONString(sorted.c2), 'null'), ',"campaignId":', ifNull(toJSONString(sorted.c3), 'null'), ',"adGroupId":', ifNull(toJSONString(sorted.c4), 'null'), ',"adPlatformAccountType":', ifNull(toJSONString(sorted.c5), 'null'), ',"adType":', ifNull(toJSONString(sorted.c6), 'null'), ',"status":', ifNull(toJSONString(sorted.c7), 'null'), ',"currency":', ifNull(toJSONString(sorted.c8), 'null'), ',"statistics":', concat('{"clicks":', ifNull(toJSONString(sorted.c9), 'null'), '}'), ',"images":', ifNull(sorted.c10, 'null'), ',"specificFields":', ifNull(sorted.c11, 'null'), '}') AS line FROM (SELECT r."id" AS c0, r."name" AS c1, r."adPlatformAccountId" AS c2, r."campaignId" AS c3, r."adGroupId" AS c4, r."adPlatformAccountType" AS c5, r."adType" AS c6, r."status" AS c7, r."currency" AS c8, toInt64(roundBankers((r.s_clicks))) AS c9, coalesce(toJSONString(r."__images"), '[]') AS c10, CASE WHEN r."adPlatformAccountType" = 'FACEBOOK' THEN r."__specificFields" END AS c11
      FROM report_rows r
      ORDER BY r.id ASC) sorted
