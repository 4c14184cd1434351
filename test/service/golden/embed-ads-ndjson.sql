-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
WITH entities AS (SELECT e.* FROM (SELECT a.id AS id, a.name AS name, c.adplatform_account_id AS "adPlatformAccountId", g.campaign_id AS "campaignId", a.ad_group_id AS "adGroupId",
                      c.ad_platform_type AS "adPlatformAccountType", a.ad_type AS "adType", a.status AS status, p.currency AS currency,
                      a.image_urls AS "__images", a.specific_fields AS "__specificFields"
                 FROM ads a JOIN ad_groups g ON g.id = a.ad_group_id JOIN campaigns c ON c.id = g.campaign_id
                 JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE a.organization_id = $1::BIGINT) e),
    
    sums AS (SELECT f.ad_id AS entity_id,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM fact_ad_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    
    ) SELECT to_json(struct_pack("id" := sorted.c0, "name" := sorted.c1, "adPlatformAccountId" := sorted.c2, "campaignId" := sorted.c3, "adGroupId" := sorted.c4, "adPlatformAccountType" := sorted.c5, "adType" := sorted.c6, "status" := sorted.c7, "currency" := sorted.c8, "statistics" := struct_pack("clicks" := sorted.c9), "images" := sorted.c10, "specificFields" := sorted.c11)) AS line FROM (SELECT r."id" AS c0, r."name" AS c1, r."adPlatformAccountId" AS c2, r."campaignId" AS c3, r."adGroupId" AS c4, r."adPlatformAccountType" AS c5, r."adType" AS c6, r."status" AS c7, r."currency" AS c8, (r.s_clicks)::BIGINT AS c9, coalesce(to_json(r."__images"), '[]'::JSON) AS c10, CASE WHEN r."adPlatformAccountType" = 'FACEBOOK' THEN r."__specificFields"::JSON END AS c11
      FROM report_rows r
      ORDER BY r.id ASC) sorted
