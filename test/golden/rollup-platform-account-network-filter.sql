-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = "SEARCH"
-- $5 = 100
-- $6 = 0
WITH entities AS (SELECT e.* FROM (SELECT p.id, p.name, p.ad_platform_type AS "adPlatformType", p.ad_platform_id AS "adPlatformId", p.currency,
                      p.time_zone AS "timeZone"
                 FROM adplatform_accounts p
                WHERE p.organization_id = $1::BIGINT) e),
    
    sums AS (SELECT f.adplatform_account_id AS entity_id, strftime(f.day, '%Y-%m') AS seg_0, f.device::VARCHAR AS seg_1,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_platform_account_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE AND (f.network <> $4::VARCHAR) GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0, s.seg_1 AS seg_1,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    )
    SELECT r."id", r."name", r."adPlatformType", r."adPlatformId", r."currency", r."timeZone", r.seg_0, r.seg_1, (r.s_clicks)::BIGINT AS st_0, (r.s_impressions)::BIGINT AS st_1, round((r.s_cost)::DOUBLE, 6) AS st_2, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC, r.seg_0 ASC, r.seg_1 ASC
     LIMIT $5::BIGINT OFFSET $6::BIGINT
