-- {p1} = 2
-- {p2} = "2026-10-23"
-- {p3} = "2026-11-21"
-- {p4} = "GOOGLE_ADS"
-- {p5} = 100
-- {p6} = 0
WITH entities AS (SELECT e.* FROM (SELECT p.id, p.name, p.ad_platform_type AS "adPlatformType", p.ad_platform_id AS "adPlatformId", p.currency,
                      p.time_zone AS "timeZone"
                 FROM adplatform_accounts p
                WHERE p.organization_id = {p1:Int64}) e WHERE e."adPlatformType" = {p4:String}),
    
    sums AS (SELECT f.adplatform_account_id AS entity_id,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, CAST(NULL AS Nullable(Float64)) AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_platform_account_daily f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} AND f.adplatform_account_id IN (SELECT id FROM entities) GROUP BY ALL),
    shares AS (SELECT f.adplatform_account_id AS entity_id,
      sum(f.impressions) AS s_searchImpressions, sum(f.eligible_impressions) AS s_searchEligibleImpressions, sum(f.budget_lost_impressions) AS s_searchBudgetLostImpressions, sum(f.rank_lost_impressions) AS s_searchRankLostImpressions, sum(f.top_impressions) AS s_searchTopImpressions, sum(f.absolute_top_impressions) AS s_searchAbsoluteTopImpressions
    FROM fact_impression_share_daily f WHERE f.organization_id = {p1:Int64} AND f.day BETWEEN {p2:Date32} AND {p3:Date32} AND f.adplatform_account_id IN (SELECT id FROM entities) GROUP BY ALL),
    
    report_rows AS (SELECT e.*,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional, coalesce(sh.s_searchImpressions, 0) AS s_searchImpressions, coalesce(sh.s_searchEligibleImpressions, 0) AS s_searchEligibleImpressions, coalesce(sh.s_searchBudgetLostImpressions, 0) AS s_searchBudgetLostImpressions, coalesce(sh.s_searchRankLostImpressions, 0) AS s_searchRankLostImpressions, coalesce(sh.s_searchTopImpressions, 0) AS s_searchTopImpressions, coalesce(sh.s_searchAbsoluteTopImpressions, 0) AS s_searchAbsoluteTopImpressions
    FROM entities e LEFT JOIN sums s ON s.entity_id = e.id
    LEFT JOIN shares sh ON sh.entity_id = e.id
    )
    SELECT r."id", r."name", r."adPlatformType", r."adPlatformId", r."currency", r."timeZone", toInt64(roundBankers((r.s_impressions))) AS st_0, toInt64(roundBankers((r.s_clicks))) AS st_1, ((trunc((toFloat64((r.s_cost)) * 1e6)) + trunc(((toFloat64((r.s_cost)) * 1e6) - trunc((toFloat64((r.s_cost)) * 1e6))) * 2)) / 1e6) AS st_2, ((trunc((toFloat64((r.s_conversions)) * 1e6)) + trunc(((toFloat64((r.s_conversions)) * 1e6) - trunc((toFloat64((r.s_conversions)) * 1e6))) * 2)) / 1e6) AS st_3, ((trunc((toFloat64((r.s_conversionValue)) * 1e6)) + trunc(((toFloat64((r.s_conversionValue)) * 1e6) - trunc((toFloat64((r.s_conversionValue)) * 1e6))) * 2)) / 1e6) AS st_4, toFloat64((toFloat64((r.s_clicks)) / nullif(toFloat64((r.s_impressions)), 0))) AS st_5, toFloat64((toFloat64((r.s_cost)) / nullif(toFloat64((r.s_clicks)), 0))) AS st_6, toFloat64((toFloat64((r.s_conversions)) / nullif(toFloat64((r.s_clicks)), 0))) AS st_7, toFloat64((toFloat64((r.s_cost)) / nullif(toFloat64((r.s_conversions)), 0))) AS st_8, toFloat64(((CASE WHEN (toFloat64((r.s_searchImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) < 0.1 THEN 0.0999 ELSE (toFloat64((r.s_searchImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) END))) AS st_9, toFloat64(((CASE WHEN (toFloat64((r.s_searchBudgetLostImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) > 0.9 THEN 0.9001 ELSE (toFloat64((r.s_searchBudgetLostImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) END))) AS st_10, toFloat64(((CASE WHEN (toFloat64((r.s_searchRankLostImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) > 0.9 THEN 0.9001 ELSE (toFloat64((r.s_searchRankLostImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) END))) AS st_11, toFloat64(((CASE WHEN (toFloat64((r.s_searchTopImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) < 0.1 THEN 0.0999 ELSE (toFloat64((r.s_searchTopImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) END))) AS st_12, toFloat64(((CASE WHEN (toFloat64((r.s_searchAbsoluteTopImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) < 0.1 THEN 0.0999 ELSE (toFloat64((r.s_searchAbsoluteTopImpressions)) / nullif(toFloat64((r.s_searchEligibleImpressions)), 0)) END))) AS st_13, count(*) OVER () AS __total
      FROM report_rows r
     ORDER BY r.id ASC
     LIMIT {p5:Int64} OFFSET {p6:Int64}
