-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = "FACEBOOK"
WITH entities AS (SELECT e.* FROM (SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = $1::BIGINT) e WHERE e."adPlatformAccountType" = $4),
    
    sums AS (SELECT f.campaign_id AS entity_id, strftime(date_trunc('week', f.day), '%Y-%m-%d') AS seg_0,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_campaign_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE AND f.campaign_id IN (SELECT id FROM entities) GROUP BY ALL),
    
    runs AS (SELECT f.campaign_id AS entity_id, strftime(date_trunc('week', f.day), '%Y-%m-%d') AS seg_0, f.adplatform_account_id AS pa, f.user_from, f.user_to
    FROM (SELECT *, 'UNKNOWN'::device_type AS device, 'SOCIAL'::network_type AS network FROM fact_audience_runs) f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE AND f.campaign_id IN (SELECT id FROM entities)), reach AS (SELECT entity_id, seg_0, coalesce(sum(greatest(0, user_to - greatest(user_from, coalesce(covered, user_from)))), 0) AS s_reach
    FROM (SELECT u.*, max(u.user_to) OVER (PARTITION BY entity_id, seg_0, u.pa ORDER BY u.user_from, u.user_to ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered
            FROM runs u) GROUP BY ALL),
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional, coalesce(rc.s_reach, 0) AS s_reach
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    LEFT JOIN reach rc ON rc.entity_id = e.id AND rc.seg_0 = s.seg_0), filtered AS (SELECT * FROM report_rows r)
       SELECT (r.s_impressions)::BIGINT AS st_0, (r.s_clicks)::BIGINT AS st_1, round((r.s_cost)::DOUBLE, 6) AS st_2, round((r.s_conversions)::DOUBLE, 6) AS st_3, round((r.s_conversionValue)::DOUBLE, 6) AS st_4, ((r.s_clicks)::DOUBLE / nullif((r.s_impressions)::DOUBLE, 0))::DOUBLE AS st_5, ((r.s_cost)::DOUBLE / nullif((r.s_clicks)::DOUBLE, 0))::DOUBLE AS st_6, ((r.s_conversions)::DOUBLE / nullif((r.s_clicks)::DOUBLE, 0))::DOUBLE AS st_7, ((r.s_cost)::DOUBLE / nullif((r.s_conversions)::DOUBLE, 0))::DOUBLE AS st_8, (r.s_reach)::BIGINT AS st_9, ((r.s_impressions)::DOUBLE / nullif((r.s_reach)::DOUBLE, 0))::DOUBLE AS st_10, r.__currencies
         FROM (SELECT coalesce(sum(s_impressions), 0) AS s_impressions, coalesce(sum(s_clicks), 0) AS s_clicks, coalesce(sum(s_cost), 0) AS s_cost, coalesce(sum(s_costWithMarkup), 0) AS s_costWithMarkup, coalesce(sum(s_conversions), 0) AS s_conversions, coalesce(sum(s_conversionValue), 0) AS s_conversionValue, coalesce(sum(s_calls), 0) AS s_calls, coalesce(sum(s_callConversions), 0) AS s_callConversions, coalesce(sum(s_callConversionsFractional), 0) AS s_callConversionsFractional, (SELECT coalesce(sum(greatest(0, user_to - greatest(user_from, coalesce(covered, user_from)))), 0) AS s_reach
    FROM (SELECT u.*, max(u.user_to) OVER (PARTITION BY u.pa ORDER BY u.user_from, u.user_to ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered
            FROM runs u SEMI JOIN filtered fr ON fr.id = u.entity_id AND fr.seg_0 = u.seg_0) ) AS s_reach,
                      string_agg(DISTINCT currency, ',' ORDER BY currency) AS __currencies FROM filtered) r
