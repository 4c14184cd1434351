-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = 100
-- $5 = 0
WITH entities AS (SELECT e.* FROM (SELECT g.id AS id, g.name AS name, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId",
                      c.ad_platform_type AS "adPlatformAccountType", g.ad_platform_id AS "adPlatformId", g.status AS status, p.currency AS currency
                 FROM ad_groups g JOIN campaigns c ON c.id = g.campaign_id JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE g.organization_id = $1::BIGINT) e),
    
    sums AS (SELECT f.ad_group_id AS entity_id, f.device::VARCHAR AS seg_0,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM fact_ad_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."name", r."adPlatformAccountId", r."campaignId", r."adPlatformAccountType", r."adPlatformId", r."status", r."currency", r.seg_0, (r.s_clicks)::BIGINT AS st_0, (r.s_impressions)::BIGINT AS st_1, round((r.s_cost)::DOUBLE, 6) AS st_2, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC, r.seg_0 ASC
     LIMIT $4::BIGINT OFFSET $5::BIGINT
