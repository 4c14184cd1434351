-- $1 = 2
-- $2 = "2026-10-23"
-- $3 = "2026-11-21"
-- $4 = 500
-- $5 = 20
WITH entities AS (SELECT e.* FROM (SELECT c.id, c.name, c.adplatform_account_id AS "adPlatformAccountId", c.ad_platform_type AS "adPlatformAccountType", c.status, p.currency
                 FROM campaigns c JOIN adplatform_accounts p ON p.id = c.adplatform_account_id
                WHERE c.organization_id = $1::BIGINT) e),
    
    sums AS (SELECT f.campaign_id AS entity_id, strftime(f.day, '%Y-%m-%d') AS seg_0,
        sum(f.impressions) AS s_impressions, sum(f.clicks) AS s_clicks, sum(f.cost) AS s_cost, NULL::DOUBLE AS s_costWithMarkup, sum(f.conversions) AS s_conversions, sum(f.conversion_value) AS s_conversionValue, sum(f.calls) AS s_calls, sum(f.call_conversions) AS s_callConversions, sum(f.call_conversions_fractional) AS s_callConversionsFractional
        FROM rollup_campaign_daily f WHERE f.organization_id = $1::BIGINT AND f.day BETWEEN $2::DATE AND $3::DATE GROUP BY ALL),
    
    
    report_rows AS (SELECT e.*, s.seg_0 AS seg_0,
      coalesce(s.s_impressions, 0) AS s_impressions, coalesce(s.s_clicks, 0) AS s_clicks, coalesce(s.s_cost, 0) AS s_cost, coalesce(s.s_costWithMarkup, 0) AS s_costWithMarkup, coalesce(s.s_conversions, 0) AS s_conversions, coalesce(s.s_conversionValue, 0) AS s_conversionValue, coalesce(s.s_calls, 0) AS s_calls, coalesce(s.s_callConversions, 0) AS s_callConversions, coalesce(s.s_callConversionsFractional, 0) AS s_callConversionsFractional
    FROM entities e JOIN sums s ON s.entity_id = e.id
    
    ) SELECT part, octet_length(part) AS bytes, total FROM (SELECT sorted.part_no, encode(CASE WHEN sorted.part_no > 0 THEN ',' ELSE '' END || string_agg(to_json(struct_pack("id" := sorted.c0, "name" := sorted.c1, "adPlatformAccountId" := sorted.c2, "adPlatformAccountType" := sorted.c3, "status" := sorted.c4, "currency" := sorted.c5, "segments" := struct_pack("day" := sorted.c6), "statistics" := struct_pack("clicks" := sorted.c7, "impressions" := sorted.c8, "cost" := sorted.c9)))::VARCHAR, ',' ORDER BY sorted.k0 ASC, sorted.k1 ASC)) AS part, max(sorted.total) AS total
      FROM (SELECT page.*, (row_number() OVER (ORDER BY page.k0 ASC, page.k1 ASC) - 1) // 128 AS part_no FROM (SELECT r."id" AS c0, r."name" AS c1, r."adPlatformAccountId" AS c2, r."adPlatformAccountType" AS c3, r."status" AS c4, r."currency" AS c5, r.seg_0 AS c6, (r.s_clicks)::BIGINT AS c7, (r.s_impressions)::BIGINT AS c8, round((r.s_cost)::DOUBLE, 6) AS c9, r.id AS k0, r.seg_0 AS k1, count(*) OVER () AS total
      FROM report_rows r
      ORDER BY r.id ASC, r.seg_0 ASC LIMIT $4::BIGINT OFFSET $5::BIGINT) page) sorted GROUP BY sorted.part_no) ORDER BY part_no
