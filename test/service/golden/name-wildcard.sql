-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = "a\\_b%\\%"
-- $5 = 100
-- $6 = 0
WITH entities AS (SELECT e.* FROM (SELECT k.id AS id, k.text AS text, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", k.ad_group_id AS "adGroupId",
                      c.ad_platform_type AS "adPlatformAccountType", k.ad_platform_id AS "adPlatformId", k.match_type AS "matchType", k.status AS status, p.currency AS currency
                 FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE k.organization_id = $1::BIGINT) e WHERE e.text LIKE $4 ESCAPE '\'),
    
    sums AS (SELECT f.keyword_id AS entity_id,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM fact_keyword_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE AND f.keyword_id IN (SELECT id FROM entities) GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."text", r."adPlatformAccountId", r."campaignId", r."adGroupId", r."adPlatformAccountType", r."adPlatformId", r."matchType", r."status", r."currency", (r.s_clicks)::BIGINT AS st_0, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC
     LIMIT $5::BIGINT OFFSET $6::BIGINT
