-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = "top rated %"
-- $5 = "a"
-- $6 = 100
-- $7 = 0
WITH entities AS (SELECT e.* FROM (SELECT k.id * 4 + t.slot AS id, CASE t.slot WHEN 0 THEN k.text WHEN 1 THEN k.text || ' in stock' WHEN 2 THEN 'top rated ' || k.text WHEN 3 THEN k.text || ' free shipping' END AS "searchTerm",
                      c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", k.ad_group_id AS "adGroupId",
                      k.id AS "keywordId", k.text AS "keywordText", c.ad_platform_type AS "adPlatformAccountType",
                      k.match_type AS "matchType", p.currency AS currency
                 FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                 CROSS JOIN (SELECT 0 AS slot UNION ALL SELECT 1 AS slot UNION ALL SELECT 2 AS slot UNION ALL SELECT 3 AS slot) t
                WHERE k.organization_id = $1::BIGINT AND t.slot <= k.id % 4
                  AND c.ad_platform_type IN ('GOOGLE_ADS', 'MICROSOFT_ADVERTISING')) e WHERE e."searchTerm" LIKE $4 ESCAPE '\' AND contains(e."keywordText", $5::VARCHAR)),
    
    sums AS (SELECT f.search_term_id AS entity_id, f.device::VARCHAR AS seg_0,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM fact_search_term_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE AND f.search_term_id IN (SELECT id FROM entities) GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."searchTerm", r."adPlatformAccountId", r."campaignId", r."adGroupId", r."keywordId", r."keywordText", r."adPlatformAccountType", r."matchType", r."currency", r.seg_0, (r.s_clicks)::BIGINT AS st_0, (r.s_impressions)::BIGINT AS st_1, round((r.s_cost)::DOUBLE, 6) AS st_2, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC, r.seg_0 ASC
     LIMIT $6::BIGINT OFFSET $7::BIGINT
