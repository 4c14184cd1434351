-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = "GOOGLE_ADS"
-- $5 = 100
-- $6 = 0
WITH entities AS (SELECT e.* FROM (SELECT p.id, p.name, p.ad_platform_type AS "adPlatformType", p.ad_platform_id AS "adPlatformId", p.currency,
                      p.time_zone AS "timeZone"
                 FROM adplatform_accounts p
                WHERE p.organization_id = $1::BIGINT) e WHERE e."adPlatformType" = $4),
    
    sums AS (SELECT f.adplatform_account_id AS entity_id,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_platform_account_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE AND f.adplatform_account_id IN (SELECT id FROM entities) GROUP BY ALL),
    shares AS (SELECT f.adplatform_account_id AS entity_id,
      sum(f.impressions) AS s_searchImpressions, sum(f.eligible_impressions) AS s_searchEligibleImpressions, sum(f.budget_lost_impressions) AS s_searchBudgetLostImpressions, sum(f.rank_lost_impressions) AS s_searchRankLostImpressions, sum(f.top_impressions) AS s_searchTopImpressions, sum(f.absolute_top_impressions) AS s_searchAbsoluteTopImpressions
    FROM fact_impression_share_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE AND f.adplatform_account_id IN (SELECT id FROM entities) GROUP BY ALL),
    
    report_rows AS (SELECT e.*,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional, coalesce(sh.s_searchImpressions, 0) AS s_searchImpressions, coalesce(sh.s_searchEligibleImpressions, 0) AS s_searchEligibleImpressions, coalesce(sh.s_searchBudgetLostImpressions, 0) AS s_searchBudgetLostImpressions, coalesce(sh.s_searchRankLostImpressions, 0) AS s_searchRankLostImpressions, coalesce(sh.s_searchTopImpressions, 0) AS s_searchTopImpressions, coalesce(sh.s_searchAbsoluteTopImpressions, 0) AS s_searchAbsoluteTopImpressions
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    LEFT JOIN shares sh ON sh.entity_id = e.id
    )
    SELECT r."id", r."name", r."adPlatformType", r."adPlatformId", r."currency", r."timeZone", (r.s_impressions)::BIGINT AS st_0, (r.s_clicks)::BIGINT AS st_1, round((r.s_cost)::DOUBLE, 6) AS st_2, round((r.s_conversions)::DOUBLE, 6) AS st_3, round((r.s_conversionValue)::DOUBLE, 6) AS st_4, ((r.s_clicks)::DOUBLE / nullif((r.s_impressions)::DOUBLE, 0))::DOUBLE AS st_5, ((r.s_cost)::DOUBLE / nullif((r.s_clicks)::DOUBLE, 0))::DOUBLE AS st_6, ((r.s_conversions)::DOUBLE / nullif((r.s_clicks)::DOUBLE, 0))::DOUBLE AS st_7, ((r.s_cost)::DOUBLE / nullif((r.s_conversions)::DOUBLE, 0))::DOUBLE AS st_8, ((CASE WHEN ((r.s_searchImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) < 0.1 THEN 0.0999 ELSE ((r.s_searchImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) END))::DOUBLE AS st_9, ((CASE WHEN ((r.s_searchBudgetLostImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) > 0.9 THEN 0.9001 ELSE ((r.s_searchBudgetLostImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) END))::DOUBLE AS st_10, ((CASE WHEN ((r.s_searchRankLostImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) > 0.9 THEN 0.9001 ELSE ((r.s_searchRankLostImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) END))::DOUBLE AS st_11, ((CASE WHEN ((r.s_searchTopImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) < 0.1 THEN 0.0999 ELSE ((r.s_searchTopImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) END))::DOUBLE AS st_12, ((CASE WHEN ((r.s_searchAbsoluteTopImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) < 0.1 THEN 0.0999 ELSE ((r.s_searchAbsoluteTopImpressions)::DOUBLE / nullif((r.s_searchEligibleImpressions)::DOUBLE, 0)) END))::DOUBLE AS st_13, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC
     LIMIT $5::BIGINT OFFSET $6::BIGINT
